//! The demo shop's help center: short, self-contained articles that `search_knowledge_base`
//! ranks with BM25. Each passage is what RAG metrics see as retrieved context, so every one
//! states its facts without relying on the others.

/// One help-center article.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Doc {
    pub id: &'static str,
    pub title: &'static str,
    pub text: &'static str,
}

const fn doc(id: &'static str, title: &'static str, text: &'static str) -> Doc {
    Doc { id, title, text }
}

pub const DOCS: [Doc; 21] = [
    doc(
        "kb-returns",
        "Return policy",
        "You can return most items within 30 days of delivery for a full refund. Items must be unused \
         and in their original packaging. Start a return from the Orders page of your account and we \
         email you a prepaid return label. Final-sale items and gift cards cannot be returned.",
    ),
    doc(
        "kb-refunds",
        "Refunds",
        "Refunds go back to the original payment method within 5 business days after we receive your \
         return. Shipping fees are refunded only if the item arrived damaged or was not what you \
         ordered. Your bank may need a few more days to show the refund on your statement.",
    ),
    doc(
        "kb-shipping-times",
        "Shipping times",
        "Standard shipping takes 3 to 5 business days and is free on orders over $50. Express shipping \
         takes 1 to 2 business days and costs $15. Orders placed before 2 pm on a business day ship \
         the same day.",
    ),
    doc(
        "kb-international-shipping",
        "International shipping",
        "We ship to more than 40 countries. International delivery takes 7 to 14 business days. \
         Customs duties and import taxes are paid by the customer on delivery. Batteries and \
         aerosols cannot be shipped internationally.",
    ),
    doc(
        "kb-order-tracking",
        "Order tracking",
        "When your order ships we email you a tracking number and a link to the carrier's website. \
         You can also track an order on the Orders page of your account, or ask the assistant for \
         the status of an order by its order number, which looks like A1001. Tracking can take up to \
         24 hours to update after an order ships.",
    ),
    doc(
        "kb-warranty",
        "Warranty",
        "All electronics come with a 2-year limited warranty that covers manufacturing defects. The \
         warranty does not cover accidental damage, water damage or normal wear. To make a warranty \
         claim, contact support with your order number and a photo of the defect.",
    ),
    doc(
        "kb-password-reset",
        "Password reset",
        "To reset your password, click Forgot password on the sign-in page and enter the email \
         address of your account. We email you a password reset link that is valid for 1 hour. If \
         the email does not arrive within a few minutes, check your spam folder or contact support.",
    ),
    doc(
        "kb-payment-methods",
        "Payment methods",
        "We accept Visa, Mastercard, American Express, PayPal, Apple Pay and Google Pay. Gift cards \
         can be combined with any other payment method. Your card is charged when your order ships, \
         not when you place it.",
    ),
    doc(
        "kb-store-hours",
        "Store hours",
        "Our stores are open Monday to Saturday from 9 am to 8 pm and on Sunday from 10 am to 6 pm. \
         Store hours may differ on public holidays. Online chat support is available 24 hours a day.",
    ),
    doc(
        "kb-gift-cards",
        "Gift cards",
        "Gift cards are sold in amounts from $10 to $500 and never expire. You can check the balance \
         of a gift card on the Gift cards page. Gift cards cannot be exchanged for cash or refunded.",
    ),
    doc(
        "kb-account-deletion",
        "Account deletion",
        "To delete your account, open Settings, choose Privacy and select Delete account. Deleting an \
         account is permanent and removes your order history, saved addresses and loyalty points \
         within 30 days. Open orders must be delivered or cancelled before you can delete your \
         account.",
    ),
    doc(
        "kb-order-cancellation",
        "Cancelling an order",
        "You can cancel an order free of charge until it ships: open the Orders page, choose it and \
         select Cancel. Once it has shipped it can no longer be cancelled, but you can return it \
         after delivery.",
    ),
    doc(
        "kb-exchanges",
        "Exchanges",
        "To exchange an item for a different size or color, return the original item and place a new \
         order for the one you want; this is the fastest way to get it. Exchanges follow the same \
         30-day window as returns.",
    ),
    doc(
        "kb-damaged-items",
        "Damaged or wrong items",
        "If an item arrives damaged or you received the wrong item, contact support within 7 days of \
         delivery and include a photo. We send a replacement at no cost or give a full refund that \
         includes the shipping fees.",
    ),
    doc(
        "kb-contact-support",
        "Contacting support",
        "You can reach customer support by chat 24 hours a day, by email at support@example.com, or by \
         phone at +1 800 555 0100 from 8 am to 8 pm Eastern Time on weekdays. We answer emails \
         within one business day.",
    ),
    doc(
        "kb-price-match",
        "Price match",
        "If you find the same item for a lower price at a major retailer within 14 days of your \
         purchase, we refund the difference. The item must be identical and in stock at the other \
         retailer. Price matching does not apply to marketplace sellers or flash sales.",
    ),
    doc(
        "kb-loyalty-points",
        "Loyalty points",
        "Members earn 1 loyalty point for every dollar they spend. Every 100 points are worth $5 off a \
         future order. Loyalty points expire after 12 months without account activity.",
    ),
    doc(
        "kb-delivery-address",
        "Changing the delivery address",
        "You can change the delivery address of an order on the Orders page until the order ships. \
         After an order has shipped, contact the carrier with your tracking number to redirect the \
         package.",
    ),
    doc(
        "kb-privacy",
        "Privacy and personal data",
        "We use your personal data only to process your orders and, if you agree, to send you offers. \
         We never sell your data. You can download a copy of your personal data from Settings under \
         Privacy.",
    ),
    doc(
        "kb-newsletter",
        "Newsletter",
        "Newsletter subscribers get 10% off their first order. You can unsubscribe from the newsletter \
         at any time with the link at the bottom of every email or in the settings of your account.",
    ),
    doc(
        "kb-invoices",
        "Invoices and receipts",
        "We email an invoice when your order ships. You can also download invoices and receipts from \
         the Orders page of your account. Business customers can add a VAT number in Settings to get \
         VAT invoices.",
    ),
];
