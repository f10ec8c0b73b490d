//! Request parameters, parsed by hand so that every bad input is a 4xx naming the parameter
//! (axum's own extractors answer with plain text that names nothing).

use std::collections::BTreeMap;

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Longest query string read; anything longer is refused before parsing.
pub const MAX_QUERY_BYTES: usize = 2048;
/// Longest identifier (model, run, task) accepted.
pub const MAX_ID_BYTES: usize = 200;

/// The query parameters of a request, each given at most once and all of them known.
#[derive(Debug, Default)]
pub struct Query {
    values: BTreeMap<String, String>,
}

impl Query {
    /// Parses `raw`, refusing parameters outside `known`, repeated ones and oversized strings.
    pub fn parse(raw: Option<&str>, known: &[&str]) -> Result<Query, ApiError> {
        let raw = raw.unwrap_or("");
        if raw.len() > MAX_QUERY_BYTES {
            return Err(ApiError::QueryTooLong {
                len: raw.len(),
                max: MAX_QUERY_BYTES,
            });
        }
        let mut values = BTreeMap::new();
        for (name, value) in form_urlencoded::parse(raw.as_bytes()) {
            if !known.contains(&name.as_ref()) {
                return Err(ApiError::bad(
                    name.as_ref(),
                    format!("unknown parameter (known: {})", known.join(", ")),
                ));
            }
            if values.insert(name.to_string(), value.to_string()).is_some() {
                return Err(ApiError::bad(name.as_ref(), "given more than once"));
            }
        }
        Ok(Query { values })
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// An optional ISO week (`2026-W48`).
    pub fn week(&self, name: &str) -> Result<Option<String>, ApiError> {
        self.get(name).map(|w| week(name, w)).transpose()
    }

    /// An optional positive integer no greater than `max`.
    pub fn number(&self, name: &str, max: u32) -> Result<Option<u32>, ApiError> {
        let Some(text) = self.get(name) else {
            return Ok(None);
        };
        let n: u32 = text
            .parse()
            .map_err(|_| ApiError::bad(name, format!("{text:?} is not a positive whole number")))?;
        if n == 0 || n > max {
            return Err(ApiError::bad(
                name,
                format!("{n} is not between 1 and {max}"),
            ));
        }
        Ok(Some(n))
    }

    /// A required identifier.
    pub fn id(&self, name: &str) -> Result<String, ApiError> {
        let value = self
            .get(name)
            .ok_or_else(|| ApiError::bad(name, "required"))?;
        id(name, value)
    }
}

/// Checks an ISO week: `YYYY-Www` with a week number the year has.
pub fn week(name: &str, text: &str) -> Result<String, ApiError> {
    passrate_pool::parse_week(text)
        .map_err(|_| ApiError::bad(name, format!("{text:?} is not an ISO week like 2026-W48")))
}

/// Checks an identifier: non-empty, bounded, no control characters.
pub fn id(name: &str, text: &str) -> Result<String, ApiError> {
    if text.is_empty() {
        return Err(ApiError::bad(name, "must not be empty"));
    }
    if text.len() > MAX_ID_BYTES {
        return Err(ApiError::bad(
            name,
            format!("{} bytes, more than the {MAX_ID_BYTES} allowed", text.len()),
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(ApiError::bad(name, "contains control characters"));
    }
    Ok(text.to_string())
}

/// Path parameters, with a JSON 400 when they cannot be decoded (invalid UTF-8 after
/// percent-decoding, for instance).
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(value)) => Ok(ApiPath(value)),
            Err(rejection) => Err(ApiError::bad("path", rejection.body_text())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_repeated_and_oversized_parameters_are_named() {
        let e = Query::parse(Some("wek=2026-W01"), &["week"]).unwrap_err();
        assert_eq!(e.body().parameter.as_deref(), Some("wek"));
        let e = Query::parse(Some("week=a&week=b"), &["week"]).unwrap_err();
        assert_eq!(e.body().parameter.as_deref(), Some("week"));
        let long = format!("week={}", "x".repeat(MAX_QUERY_BYTES));
        let e = Query::parse(Some(&long), &["week"]).unwrap_err();
        assert_eq!(e.status(), axum::http::StatusCode::URI_TOO_LONG);
    }

    #[test]
    fn weeks_and_numbers_are_checked() {
        let q = Query::parse(Some("week=2026-W54&page=0"), &["week", "page"]).unwrap();
        assert!(q.week("week").is_err());
        assert!(q.number("page", 10).is_err());
        let q = Query::parse(Some("week=2026-W48&page=3"), &["week", "page"]).unwrap();
        assert_eq!(q.week("week").unwrap().as_deref(), Some("2026-W48"));
        assert_eq!(q.number("page", 10).unwrap(), Some(3));
    }
}
