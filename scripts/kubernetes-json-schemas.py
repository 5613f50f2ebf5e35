#!/usr/bin/env python3
"""Writes kubeconform's standalone-strict JSON schemas, one file per kind, from Kubernetes' OpenAPI v2 document.

    scripts/kubernetes-json-schemas.py SWAGGER_JSON OUT_DIR

SWAGGER_JSON is api/openapi-spec/swagger.json of the k8s.io/kubernetes Go module (the Go module proxy serves it, so
no access to GitHub is needed). Each definition with an x-kubernetes-group-version-kind becomes
OUT_DIR/{kind}-{group}-{version}.json ({kind}-{version}.json for the core group), the names kubeconform looks up
with -schema-location 'OUT_DIR/{{ .ResourceKind }}{{ .KindSuffix }}.json'. As yannh/kubernetes-json-schema's
standalone-strict flavour does: every $ref is inlined (a recursive one, only in CRD definitions, accepts anything),
an object with properties takes no other property, int-or-string and quantities take a string or a number.
"""
import json
import os
import sys

NUMBER_OR_STRING = {"oneOf": [{"type": "string"}, {"type": "number"}]}
INT_OR_STRING = {"oneOf": [{"type": "string"}, {"type": "integer"}]}


def resolve(node, definitions, seen):
    if isinstance(node, list):
        return [resolve(item, definitions, seen) for item in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("$ref"), str):
        name = node["$ref"].split("/")[-1]
        if name in seen:
            return {}
        return resolve(definitions[name], definitions, seen | {name})
    if node.get("format") == "int-or-string":
        return dict(INT_OR_STRING)
    resolved = {key: resolve(value, definitions, seen) for key, value in node.items()
                if not key.startswith("x-kubernetes-")}
    if "properties" in resolved and "additionalProperties" not in resolved:
        resolved["additionalProperties"] = False
    return resolved


def main(swagger_path, out_dir):
    with open(swagger_path) as f:
        definitions = json.load(f)["definitions"]
    definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] = NUMBER_OR_STRING
    os.makedirs(out_dir, exist_ok=True)
    written = 0
    for name, definition in definitions.items():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            group = gvk["group"].split(".")[0]
            suffix = f"-{group}-{gvk['version']}" if group else f"-{gvk['version']}"
            schema = resolve(definition, definitions, {name})
            with open(os.path.join(out_dir, f"{gvk['kind'].lower()}{suffix}.json"), "w") as f:
                json.dump(schema, f)
            written += 1
    print(f"kubernetes-json-schemas: {written} schemas written to {out_dir}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
