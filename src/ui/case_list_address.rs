//! Where the case list stands, as its URL says it: `?page=&sort=&q=&desc=1&failed=1`. One type
//! reads it and writes it, so every link the list builds is read back the same way.

use super::encode_query_value;
use crate::records::cases::{CaseListQuery, CaseSort};

/// The case list's filter, order and page.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseListAddress {
    pub query: CaseListQuery,
    /// 1-based.
    pub page: i64,
}

impl CaseListAddress {
    /// Reads the URL's query parameters (`param` gives each one's value); what is missing or
    /// unreadable takes its default.
    pub fn read(param: impl Fn(&str) -> Option<String>) -> CaseListAddress {
        CaseListAddress {
            query: CaseListQuery {
                text: param("q").unwrap_or_default(),
                sort: param("sort")
                    .and_then(|s| CaseSort::parse(&s))
                    .unwrap_or_default(),
                descending: param("desc").is_some_and(|d| d == "1"),
                failed_last_run: param("failed").is_some_and(|f| f == "1"),
            },
            page: param("page").and_then(|p| p.parse().ok()).unwrap_or(1),
        }
    }

    /// The same list at page `page`.
    pub fn at_page(&self, page: i64) -> CaseListAddress {
        CaseListAddress {
            query: self.query.clone(),
            page,
        }
    }

    /// The link to the evalset page showing the list so.
    pub fn href(&self, app: &str, eval_set_id: &str) -> String {
        let query = &self.query;
        let mut href = format!(
            "/evalsets/{app}/{eval_set_id}?page={}&sort={}",
            self.page,
            query.sort.as_str()
        );
        if !query.text.is_empty() {
            href.push_str(&format!("&q={}", encode_query_value(&query.text)));
        }
        if query.descending {
            href.push_str("&desc=1");
        }
        if query.failed_last_run {
            href.push_str("&failed=1");
        }
        href
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query parameters of `href`, decoded.
    fn params(href: &str) -> Vec<(String, String)> {
        let (_, query) = href.split_once('?').unwrap();
        query
            .split('&')
            .map(|pair| {
                let (key, value) = pair.split_once('=').unwrap();
                (key.to_string(), decode(value))
            })
            .collect()
    }

    fn decode(value: &str) -> String {
        let mut bytes = Vec::new();
        let mut rest = value.as_bytes();
        while let Some((&byte, tail)) = rest.split_first() {
            if byte == b'%' {
                bytes.push(u8::from_str_radix(std::str::from_utf8(&tail[..2]).unwrap(), 16).unwrap());
                rest = &tail[2..];
            } else {
                bytes.push(byte);
                rest = tail;
            }
        }
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_written_address_reads_back_the_same() {
        let address = CaseListAddress {
            query: CaseListQuery {
                text: "get weather & más".into(),
                sort: CaseSort::ToolCalls,
                descending: true,
                failed_last_run: true,
            },
            page: 3,
        };
        let href = address.href("demo", "weather");
        assert!(
            href.starts_with("/evalsets/demo/weather?page=3&sort=tool_calls&q="),
            "{href}"
        );
        let params = params(&href);
        let read = CaseListAddress::read(|key| params.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()));
        assert_eq!(read, address);
    }

    #[test]
    fn a_bare_address_is_the_first_page_in_file_order() {
        let read = CaseListAddress::read(|_| None);
        assert_eq!(read.page, 1);
        assert_eq!(read.query, CaseListQuery::default());
        assert_eq!(read.href("demo", "w"), "/evalsets/demo/w?page=1&sort=file");
    }
}
