//! Which fields a params type takes, read from its JSON Schema (`schemars`), so that a request naming
//! a field the method does not have is refused instead of silently ignored.
//!
//! serde's own `deny_unknown_fields` does not work with `#[serde(flatten)]`, which the input params use
//! (`ref`/`selector` are flattened into every element action's params), so the check reads the names
//! from the same schema the MCP tools' input schemas and `sandbox-browser schema` are made of: one source
//! of truth for what a method accepts. A field is refused with its name, the accepted ones, and the
//! closest accepted name (Levenshtein distance, `strsim`) as a hint.
//!
//! ```
//! use sb_protocol::api::ExtractParams;
//! use serde_json::json;
//! let e = sb_protocol::fields::check::<ExtractParams>(&json!({"formatt": "html"})).unwrap_err();
//! assert_eq!(e.field, "formatt");
//! assert_eq!(e.closest.as_deref(), Some("format"));
//! assert!(sb_protocol::fields::check::<ExtractParams>(&json!({"format": "html"})).is_ok());
//! ```

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

use schemars::JsonSchema;
use serde_json::Value;

/// A field the params type does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The field as the request named it.
    pub field: String,
    /// The fields the type takes, in alphabetical order.
    pub accepted: Vec<String>,
    /// The accepted name closest to `field`, when one is close (at most a third of its letters off).
    pub closest: Option<String>,
}

impl std::fmt::Display for UnknownField {
    /// `unknown parameter 'formatt' (did you mean 'format'?); it takes: format, max_chars`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown parameter '{}'", self.field)?;
        if let Some(closest) = &self.closest {
            write!(f, " (did you mean '{closest}'?)")?;
        }
        if self.accepted.is_empty() {
            write!(f, "; it takes no parameters")
        } else {
            write!(f, "; it takes: {}", self.accepted.join(", "))
        }
    }
}

/// The names each checked type takes, by type: a schema is generated once per type.
static NAMES: LazyLock<RwLock<HashMap<TypeId, Arc<Vec<String>>>>> = LazyLock::new(Default::default);

/// The top-level field names of `T`'s JSON object: its schema's `properties`, and those of the
/// subschemas it is made of (`allOf`/`anyOf`/`oneOf`: flattened structs, untagged enums).
pub fn names<T: JsonSchema + 'static>() -> Arc<Vec<String>> {
    if let Some(names) = NAMES.read().unwrap().get(&TypeId::of::<T>()) {
        return names.clone();
    }
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let schema = settings.into_generator().into_root_schema_for::<T>().to_value();
    let mut found = Vec::new();
    collect(&schema, &mut found);
    let names = Arc::new(found);
    NAMES.write().unwrap().insert(TypeId::of::<T>(), names.clone());
    names
}

fn collect(schema: &Value, found: &mut Vec<String>) {
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for name in properties.keys() {
            if !found.contains(name) {
                found.push(name.clone());
            }
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(parts)) = schema.get(key) {
            parts.iter().for_each(|part| collect(part, found));
        }
    }
}

/// Checks that `params` (a JSON object, or `null` for none) names only fields `T` takes.
///
/// # Errors
/// The first [`UnknownField`], in the request's order.
pub fn check<T: JsonSchema + 'static>(params: &Value) -> Result<(), UnknownField> {
    let Value::Object(given) = params else { return Ok(()) };
    match unknown(given.keys(), &names::<T>()) {
        Some(field) => Err(field),
        None => Ok(()),
    }
}

/// The first of `given` that is not in `accepted`, with the closest accepted name; `None` when all are.
pub fn unknown<'a>(given: impl IntoIterator<Item = &'a String>, accepted: &[String]) -> Option<UnknownField> {
    let field = given.into_iter().find(|k| !accepted.contains(k))?;
    let closest = accepted
        .iter()
        .map(|a| (strsim::levenshtein(field, a), a))
        .filter(|(distance, a)| *distance * 3 <= field.len().max(a.len()))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, a)| a.clone());
    Some(UnknownField { field: field.clone(), accepted: accepted.to_vec(), closest })
}

/// The params of a method that takes none: an empty object (or none at all).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ClickParams, ExtractParams, WaitForParams};
    use serde_json::json;

    #[test]
    fn flattened_fields_count_and_typos_get_the_closest_name() {
        let names = names::<ClickParams>();
        for field in ["ref", "selector", "button", "click_count", "modifiers", "settle_ms"] {
            assert!(names.contains(&field.to_string()), "{field} in {names:?}");
        }
        let e = check::<ClickParams>(&json!({"ref": "e1", "force": true})).unwrap_err();
        assert_eq!((e.field.as_str(), e.closest), ("force", None));
        let e = check::<ExtractParams>(&json!({"format": "html", "max_charz": 5})).unwrap_err();
        assert_eq!(e.closest.as_deref(), Some("max_chars"));
        assert_eq!(
            e.to_string(),
            "unknown parameter 'max_charz' (did you mean 'max_chars'?); it takes: format, max_chars"
        );
        assert!(check::<WaitForParams>(&json!({"selector": "#x", "state": "visible"})).is_ok());
        assert!(check::<ExtractParams>(&Value::Null).is_ok());
    }

    #[test]
    fn a_method_without_params_takes_none() {
        let e = check::<NoParams>(&json!({"x": 1})).unwrap_err();
        assert_eq!(e.to_string(), "unknown parameter 'x'; it takes no parameters");
        assert!(check::<NoParams>(&json!({})).is_ok());
    }
}
