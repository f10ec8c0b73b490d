//! The OpenAPI 3.1 document, built from the endpoint table ([`crate::api::endpoints`]) and
//! the JSON Schemas of the response types (schemars, draft 2020-12, which OpenAPI 3.1
//! adopts as is: the same types also give `passrate schema` its documents).

use std::sync::OnceLock;

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::api::endpoints;
use crate::error::ErrorBody;

/// The document, built once.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(build)
}

fn build() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    let mut generator = settings.into_generator();
    let error_schema = generator.subschema_for::<ErrorBody>().to_value();
    let error = |description: &str| {
        json!({
            "description": description,
            "content": {"application/json": {"schema": error_schema.clone()}}
        })
    };

    let mut paths = Map::new();
    for endpoint in endpoints() {
        let mut parameters = Vec::new();
        for (name, description) in endpoint.path_params {
            parameters.push(json!({
                "name": name,
                "in": "path",
                "required": true,
                "description": description,
                "schema": {"type": "string", "minLength": 1, "maxLength": crate::params::MAX_ID_BYTES}
            }));
        }
        for q in endpoint.query {
            parameters.push(json!({
                "name": q.name,
                "in": "query",
                "required": q.required,
                "description": q.description,
                "schema": (q.schema)()
            }));
        }
        let schema = (endpoint.response)(&mut generator).to_value();
        let mut responses = Map::new();
        if let Some(request) = endpoint.request {
            let body = request(&mut generator).to_value();
            responses.insert(
                "201".into(),
                json!({
                    "description": "Registered",
                    "content": {endpoint.media_type: {"schema": schema}}
                }),
            );
            for (status, description) in [
                ("400", "The body is not a registration"),
                ("401", "No bearer token"),
                ("403", "Wrong token, or writes are off on this server"),
                ("409", "Already registered"),
                ("413", "The body is too large"),
                ("422", "The models file would not accept it"),
                ("500", "The models file could not be read or written"),
            ] {
                responses.insert(status.into(), error(description));
            }
            let operation = json!({
                "operationId": endpoint.operation_id,
                "summary": endpoint.summary,
                "security": [{"bearer": []}],
                "requestBody": {
                    "required": true,
                    "content": {"application/json": {"schema": body}}
                },
                "responses": responses,
            });
            let item = paths
                .entry(endpoint.path.to_string())
                .or_insert_with(|| json!({}));
            item[endpoint.method] = operation;
            continue;
        }
        responses.insert(
            "200".into(),
            json!({
                "description": "OK",
                "content": {endpoint.media_type: {"schema": schema}}
            }),
        );
        if endpoint.media_type == "application/json" && endpoint.operation_id != "health" {
            responses.insert(
                "304".into(),
                json!({"description": "Not modified (the If-None-Match ETag matches)"}),
            );
            responses.insert(
                "400".into(),
                error("A parameter is malformed, out of range or unknown"),
            );
            responses.insert(
                "404".into(),
                error("What the parameters name is not stored"),
            );
            responses.insert("414".into(), error("The query string is too long"));
        }
        if endpoint.may_be_unavailable && endpoint.operation_id != "health" {
            responses.insert("500".into(), error("The store failed"));
        }
        if endpoint.operation_id == "health" {
            responses.insert(
                "503".into(),
                json!({
                    "description": "The store did not answer",
                    "content": {"application/json": {"schema": schema_value(&mut generator)}}
                }),
            );
        }
        let operation = json!({
            "operationId": endpoint.operation_id,
            "summary": endpoint.summary,
            "parameters": parameters,
            "responses": responses,
        });
        let item = paths
            .entry(endpoint.path.to_string())
            .or_insert_with(|| json!({}));
        item[endpoint.method] = operation;
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "passrate",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Weekly pass rates of code-generation models: leaderboards with \
                            intervals, model histories, runs and their outcomes (hidden tests \
                            never appear).",
        },
        "paths": paths,
        "components": {
            "schemas": generator.take_definitions(true),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    })
}

fn schema_value(generator: &mut schemars::SchemaGenerator) -> Value {
    generator.subschema_for::<crate::views::Health>().to_value()
}
