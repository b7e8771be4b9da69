//! Previous / next links between the pages of a list whose page is in its address.

use leptos::prelude::*;

/// The links for page `page` of `page_count`, each page's address from `href`; nothing for a
/// single page.
pub fn page_links(page: i64, page_count: i64, href: &dyn Fn(i64) -> String) -> Option<impl IntoView + use<>> {
    (page_count > 1).then(|| {
        view! {
            <nav class="pager" aria-label="Pages">
                {(page > 1).then(|| view! { <a href=href(page - 1) rel="prev">"← Previous"</a> })}
                <span class="muted">"Page " {page} " of " {page_count}</span>
                {(page < page_count).then(|| view! { <a href=href(page + 1) rel="next">"Next →"</a> })}
            </nav>
        }
    })
}
