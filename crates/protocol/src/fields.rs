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

/// Each checked type's schema (subschemas inlined), by type: generated once per type.
static SCHEMAS: LazyLock<RwLock<HashMap<TypeId, Arc<Value>>>> = LazyLock::new(Default::default);

/// `T`'s JSON Schema with its subschemas inlined (so a nested object's fields are where it is).
fn schema<T: JsonSchema + 'static>() -> Arc<Value> {
    if let Some(schema) = SCHEMAS.read().unwrap().get(&TypeId::of::<T>()) {
        return schema.clone();
    }
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let schema = Arc::new(settings.into_generator().into_root_schema_for::<T>().to_value());
    SCHEMAS.write().unwrap().insert(TypeId::of::<T>(), schema.clone());
    schema
}

/// The top-level field names of `T`'s JSON object: its schema's `properties`, and those of the
/// subschemas it is made of (`allOf`/`anyOf`/`oneOf`: flattened structs, untagged enums, options).
pub fn names<T: JsonSchema + 'static>() -> Arc<Vec<String>> {
    let mut found = Vec::new();
    collect(&schema::<T>(), &mut found);
    Arc::new(found)
}

/// The subschemas `schema` is made of, itself first.
fn parts(schema: &Value) -> Vec<&Value> {
    let mut all = vec![schema];
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(subs)) = schema.get(key) {
            subs.iter().for_each(|sub| all.extend(parts(sub)));
        }
    }
    all
}

fn collect(schema: &Value, found: &mut Vec<String>) {
    for part in parts(schema) {
        if let Some(Value::Object(properties)) = part.get("properties") {
            for name in properties.keys() {
                if !found.contains(name) {
                    found.push(name.clone());
                }
            }
        }
    }
}

/// Whether `schema` describes an object of named fields (a struct), not a free-form map or value.
fn is_struct(schema: &Value) -> bool {
    parts(schema)
        .iter()
        .any(|p| p.get("properties").is_some() || p.get("additionalProperties") == Some(&Value::Bool(false)))
}

/// The schema of field `name` in `schema` (in whichever of its parts has it).
fn field<'a>(schema: &'a Value, name: &str) -> Option<&'a Value> {
    parts(schema).into_iter().find_map(|p| p.get("properties")?.get(name))
}

/// Checks that `params` (a JSON object, or `null` for none) names only fields `T` takes, at every
/// depth: a nested object (`clip`, `viewport`, an array's items) only the fields its own type takes.
///
/// # Errors
/// The first [`UnknownField`], in the request's order, depth first; a nested one is named by its path
/// (`clip.wdth`), as are the names it gives.
pub fn check<T: JsonSchema + 'static>(params: &Value) -> Result<(), UnknownField> {
    check_at(&schema::<T>(), params, "")
}

fn check_at(schema: &Value, value: &Value, path: &str) -> Result<(), UnknownField> {
    match value {
        Value::Object(given) if is_struct(schema) => {
            let mut accepted = Vec::new();
            collect(schema, &mut accepted);
            if let Some(mut unknown) = unknown(given.keys(), &accepted) {
                if !path.is_empty() {
                    unknown.field = format!("{path}.{}", unknown.field);
                    unknown.closest = unknown.closest.map(|n| format!("{path}.{n}"));
                    unknown.accepted = unknown.accepted.iter().map(|n| format!("{path}.{n}")).collect();
                }
                return Err(unknown);
            }
            for (name, inner) in given {
                if let Some(sub) = field(schema, name) {
                    let inner_path = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
                    check_at(sub, inner, &inner_path)?;
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            let Some(item) = parts(schema).into_iter().find_map(|p| p.get("items")) else { return Ok(()) };
            for (i, inner) in items.iter().enumerate() {
                check_at(item, inner, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The fields of a request line itself ([`crate::api::Request`]).
pub const REQUEST_FIELDS: [&str; 6] = ["id", "method", "params", "session_id", "session_token", "timeout_ms"];

/// Checks that a request line (a JSON object) names only a request's own fields: a misplaced or
/// misspelt one (`"timeout": 30000`) is refused, not dropped while the default budget runs.
///
/// # Errors
/// The first [`UnknownField`], with the closest field (`did you mean 'timeout_ms'?`).
pub fn check_request(request: &Value) -> Result<(), UnknownField> {
    let Value::Object(given) = request else { return Ok(()) };
    let accepted: Vec<String> = REQUEST_FIELDS.iter().map(|f| f.to_string()).collect();
    match unknown(given.keys(), &accepted) {
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

    /// Issue 55 §5: nested objects and arrays of them are held to their own fields.
    #[test]
    fn nested_objects_are_checked_too() {
        use crate::api::{EmulateParams, ScreenshotParams};
        let e = check::<ScreenshotParams>(&json!({"clip": {"x": 0, "y": 0, "wdth": 10, "height": 10}}))
            .unwrap_err();
        assert_eq!(e.field, "clip.wdth");
        assert_eq!(e.closest.as_deref(), Some("clip.width"));
        assert!(
            check::<ScreenshotParams>(&json!({"clip": {"x": 0, "y": 0, "width": 10, "height": 10}})).is_ok()
        );
        let e =
            check::<EmulateParams>(&json!({"geolocation": {"latitude": 1, "longitude": 2, "acuracy": 3}}))
                .unwrap_err();
        assert_eq!(e.closest.as_deref(), Some("geolocation.accuracy"));
    }

    #[test]
    fn a_request_names_only_its_own_fields() {
        let e = check_request(&json!({"id": 1, "method": "page.goto", "timeout": 30000})).unwrap_err();
        assert_eq!(e.closest.as_deref(), Some("timeout_ms"));
        assert!(check_request(&json!({"id": 1, "method": "x", "params": {}, "timeout_ms": 5})).is_ok());
    }

    #[test]
    fn a_method_without_params_takes_none() {
        let e = check::<NoParams>(&json!({"x": 1})).unwrap_err();
        assert_eq!(e.to_string(), "unknown parameter 'x'; it takes no parameters");
        assert!(check::<NoParams>(&json!({})).is_ok());
    }
}
