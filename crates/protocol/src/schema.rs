//! The whole API as one JSON Schema document (draft 2020-12): what `sandbox-browser schema` prints and
//! `docs/api.schema.json` holds (a test fails when the file is stale), and what other languages'
//! clients are generated from.
//!
//! Everything in it comes from the Rust types through `schemars`: each method of
//! [`crate::api::Method`] (its wire name, whether it needs a session, its default budget, its params and
//! result), the part every result has ([`CommonResult`]), the error body, and every error code with its
//! `retryable`. Types are in `$defs`; the methods and codes are listed under `x-methods` and
//! `x-error-codes` (JSON Schema keeps unknown keywords).
//!
//! ```
//! let doc = sb_protocol::schema::document();
//! let goto = doc["x-methods"].as_array().unwrap().iter().find(|m| m["name"] == "page.goto").unwrap();
//! assert_eq!(goto["session"], true);
//! assert_eq!(goto["params"]["$ref"], "#/$defs/GotoParams");
//! ```

use schemars::generate::SchemaSettings;
use serde_json::{json, Value};

use crate::api::{CommonResult, Method};
use crate::error::{ErrorBody, ErrorCode};

/// The API's schema document (see the module's documentation for its shape).
pub fn document() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let methods: Vec<Value> = Method::ALL
        .iter()
        .map(|m| {
            let (params, result) = m.schemas(&mut generator);
            json!({
                "name": m.name(),
                "description": m.description().lines().map(str::trim).collect::<Vec<_>>().join(" ").trim().to_string(),
                "session": m.needs_session(),
                "default_timeout_ms": m.default_timeout_ms(),
                "params": params,
                "result": result,
            })
        })
        .collect();
    let common = generator.subschema_for::<CommonResult>();
    let error = generator.subschema_for::<ErrorBody>();
    let codes: Vec<Value> = error_codes()
        .into_iter()
        .map(|code| json!({"code": code.as_str(), "retryable": code.retryable()}))
        .collect();
    let defs: serde_json::Map<String, Value> = generator.take_definitions(true);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "sandbox-browser socket API",
        "description": "Newline-delimited JSON on the supervisor's Unix socket: a request {id, method, session_id?, timeout_ms?, params?} answers {id, ok: true, result} (the method's result and the common result part in one object) or {id, ok: false, error}.",
        "x-methods": methods,
        "x-common-result": common,
        "x-error": error,
        "x-error-codes": codes,
        "$defs": defs,
    })
}

/// Every error code the runtime sends, in declaration order, read from [`ErrorCode`]'s own schema
/// (its serde names), without `unknown` (a client's name for a code from a newer runtime).
pub fn error_codes() -> Vec<ErrorCode> {
    let schema = schemars::schema_for!(ErrorCode).to_value();
    let mut names = Vec::new();
    collect_consts(&schema, &mut names);
    names
        .into_iter()
        .filter_map(|name| serde_json::from_value::<ErrorCode>(Value::String(name)).ok())
        .filter(|code| *code != ErrorCode::Unknown)
        .collect()
}

fn collect_consts(schema: &Value, names: &mut Vec<String>) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::String(name)) = map.get("const") {
        names.push(name.clone());
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        names.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(parts)) = map.get(key) {
            parts.iter().for_each(|p| collect_consts(p, names));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_one_wire_name_and_its_retryable() {
        let codes = error_codes();
        assert_eq!(codes.len(), 30, "{codes:?}");
        for code in codes {
            let wire = serde_json::to_value(code).unwrap();
            assert_eq!(wire, json!(code.as_str()), "serde and as_str agree");
        }
        let retryable: Vec<&str> =
            error_codes().into_iter().filter(|c| c.retryable()).map(|c| c.as_str()).collect();
        assert_eq!(
            retryable,
            [
                "too_many_connections",
                "timeout",
                "navigation_failed",
                "page_reset",
                "worker_crashed",
                "cdp_error",
                "element_covered",
                "not_visible",
                "not_enabled",
                "not_stable",
                "human_in_control"
            ]
        );
    }

    #[test]
    fn every_method_is_in_the_document_with_params_and_result() {
        let doc = document();
        let methods = doc["x-methods"].as_array().unwrap();
        for m in methods {
            for part in ["params", "result"] {
                let reference = m[part]["$ref"].as_str().unwrap_or_else(|| panic!("{m}"));
                let name = reference.trim_start_matches("#/$defs/");
                assert!(doc["$defs"].get(name).is_some(), "{name} is defined");
            }
        }
    }

    /// The property names a result schema allows: its own (through `$ref`, `anyOf` and `allOf`) and
    /// the common part's.
    fn allowed(doc: &Value, schema: &Value, names: &mut std::collections::BTreeSet<String>) {
        if let Some(r) = schema["$ref"].as_str() {
            allowed(doc, &doc["$defs"][r.trim_start_matches("#/$defs/")], names);
        }
        if let Some(props) = schema["properties"].as_object() {
            names.extend(props.keys().cloned());
        }
        for key in ["anyOf", "allOf", "oneOf"] {
            for part in schema[key].as_array().into_iter().flatten() {
                allowed(doc, part, names);
            }
        }
    }

    /// Issue 25: docs/protocol.md (written by scripts/protocol-examples.sh from a real run) is held to
    /// the declaration: it shows every method; each example's params are ones its method takes; each
    /// answer's fields are its result type's or the common part's, and each error's code is one the
    /// runtime has. A renamed field or a method without its docs line fails here.
    #[test]
    fn docs_protocol_md_shows_every_method_and_agrees_with_the_schema() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/protocol.md")).unwrap();
        let doc = document();
        let mut shown = std::collections::BTreeSet::new();
        let mut lines = text.lines();
        let mut examples = 0;
        while let Some(line) = lines.next() {
            if line != "```json" {
                continue;
            }
            let request: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
            let response: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
            examples += 1;
            assert_eq!(request["id"], response["id"], "{request}");
            let name = request["method"].as_str().unwrap();
            let Some(method) = Method::parse(name) else {
                assert_eq!(response["error"]["code"], "unknown_method", "{request}");
                continue;
            };
            shown.insert(method.name());
            let params = request.get("params").cloned().unwrap_or(json!({}));
            method.check_params(&params).unwrap_or_else(|e| panic!("{request}: {e:?}"));
            if response["ok"] == true {
                let entry = doc["x-methods"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap();
                let mut names = std::collections::BTreeSet::new();
                allowed(&doc, &entry["result"], &mut names);
                allowed(&doc, &doc["x-common-result"], &mut names);
                for key in response["result"].as_object().unwrap().keys() {
                    assert!(
                        names.contains(key),
                        "{name} answers `{key}`, which its result type does not have"
                    );
                }
            } else {
                let code: ErrorCode = serde_json::from_value(response["error"]["code"].clone()).unwrap();
                assert_ne!(code, ErrorCode::Unknown, "{response}");
            }
        }
        let missing: Vec<&str> =
            Method::ALL.iter().map(|m| m.name()).filter(|n| !shown.contains(n)).collect();
        assert!(missing.is_empty(), "docs/protocol.md has no example of {missing:?}");
        assert!(examples > 40, "{examples}");
    }
}
