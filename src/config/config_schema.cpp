// The JSON Schema (2020-12) of the config file: the structural rules of interface.md ("Resources
// and their fields") and decisions D6, D7, D8, D13, D20, D40. Rules that need the whole document
// (unique names, references between tables, roles, buckets, defaults against options…) are in
// semantic_checks.cpp.
#include "config/config_schema.hpp"

#include <cstdlib>

#include <boost/json/parse.hpp>

#include "config/model.hpp"

namespace cairn::config {
namespace {

// Everything except the per-type field shapes, which are generated below from kFieldTypes.
constexpr std::string_view kBaseSchema = R"json({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "cairn application configuration",
  "description": "One file declares the whole application: tables, auth, buckets and more.",
  "type": "object",
  "required": ["name"],
  "additionalProperties": false,
  "properties": {
    "name": {
      "description": "Package-style application name, optionally @scope/name.",
      "type": "string", "minLength": 1, "maxLength": 214,
      "allOf": [{
        "pattern": "^(?:@[a-z0-9-~][a-z0-9-._~]*\\/)?[a-z0-9-~][a-z0-9-._~]*$",
        "errorMessage": "must be a package-style name: lowercase letters, digits, '-', '.', '_' and '~', optionally prefixed by @scope/"
      }]
    },
    "version": {
      "description": "Semantic Versioning 2.0.0.",
      "type": "string", "minLength": 5,
      "pattern": "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?(\\+([0-9a-zA-Z-]+(\\.[0-9a-zA-Z-]+)*))?$",
      "errorMessage": "must be a Semantic Versioning 2.0.0 string such as \"1.0.0\" or \"2.1.0-beta.1\""
    },
    "description": {
      "type": "string", "maxLength": 2000,
      "allOf": [{"pattern": "^[^\\r\\n]*$", "errorMessage": "must be a single line (no line breaks)"}]
    },
    "tables": {"type": "array", "items": {"$ref": "#/$defs/table"}},
    "theme": {"type": "object"},
    "languages": {"type": "object"},
    "auth": {"$ref": "#/$defs/auth"},
    "analytics": {"anyOf": [{"type": "boolean"}, {"$ref": "#/$defs/analytics"}]},
    "components": {"type": ["object", "array"]},
    "pages": {"type": ["object", "array"]},
    "buckets": {"type": "array", "items": {"$ref": "#/$defs/bucket"}}
  },
  "$defs": {
    "tableId": {
      "anyOf": [
        {"type": "integer", "minimum": 1, "maximum": 9007199254740991},
        {"type": "string", "pattern": "^[1-9][0-9]{0,15}$"}
      ],
      "errorMessage": "must be a positive integer (or a string of digits)"
    },
    "fieldId": {"type": "integer", "minimum": 1, "maximum": 9007199254740991},
    "tableName": {
      "type": "string", "minLength": 1, "maxLength": 63,
      "allOf": [{
        "pattern": "^[a-zA-Z][a-zA-Z0-9_ -]*$",
        "errorMessage": "must start with a letter and contain only letters, digits, spaces, '_' and '-'"
      }]
    },
    "fieldName": {
      "type": "string", "minLength": 1, "maxLength": 63,
      "allOf": [{
        "pattern": "^[a-z][a-z0-9_]*$",
        "errorMessage": "must start with a lowercase letter and contain only lowercase letters, digits and '_'"
      }]
    },
    "roleName": {
      "type": "string", "minLength": 1, "maxLength": 63,
      "allOf": [{
        "pattern": "^[a-z][a-z0-9_-]*$",
        "errorMessage": "must start with a lowercase letter and contain only lowercase letters, digits, '_' and '-'"
      }]
    },
    "bucketName": {
      "type": "string", "minLength": 1, "maxLength": 63,
      "allOf": [{
        "pattern": "^[a-z][a-z0-9-]*$",
        "errorMessage": "must start with a lowercase letter and contain only lowercase letters, digits and '-'"
      }]
    },
    "mimeType": {
      "type": "string",
      "pattern": "^(\\*/\\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/(\\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*))$",
      "errorMessage": "must be a MIME type or pattern such as image/png, image/* or */*"
    },
    "currencyCode": {
      "type": "string",
      "pattern": "^[A-Z]{3}$",
      "errorMessage": "must be a three-letter ISO 4217 code in capitals, such as USD"
    },
    "permissionValue": {
      "description": "all, authenticated, or a list of role names (built-in or declared in auth.roles).",
      "anyOf": [
        {"enum": ["all", "authenticated"]},
        {"type": "array", "uniqueItems": true, "items": {"$ref": "#/$defs/roleName"}}
      ],
      "errorMessage": "must be 'all', 'authenticated' or a list of role names"
    },
    "selectOptions": {
      "type": "array", "minItems": 1, "uniqueItems": true,
      "items": {"type": "string", "minLength": 1, "maxLength": 255}
    },
    "table": {
      "type": "object",
      "required": ["name", "fields"],
      "additionalProperties": false,
      "properties": {
        "id": {"$ref": "#/$defs/tableId"},
        "name": {"$ref": "#/$defs/tableName"},
        "fields": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/field"}},
        "views": {"type": "array", "items": {"$ref": "#/$defs/view"}},
        "permissions": {"$ref": "#/$defs/tablePermissions"},
        "indexes": {"type": "array", "items": {"$ref": "#/$defs/index"}}
      }
    },
    "tablePermissions": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "read": {"$ref": "#/$defs/permissionValue"},
        "create": {"$ref": "#/$defs/permissionValue"},
        "update": {"$ref": "#/$defs/permissionValue"},
        "delete": {"$ref": "#/$defs/permissionValue"},
        "restore": {"$ref": "#/$defs/permissionValue"},
        "permanentDelete": {"$ref": "#/$defs/permissionValue"},
        "comment": {"$ref": "#/$defs/permissionValue"},
        "fields": {"type": "array", "items": {"$ref": "#/$defs/fieldPermission"}}
      }
    },
    "fieldPermission": {
      "type": "object",
      "required": ["field"],
      "additionalProperties": false,
      "properties": {
        "field": {"type": "string", "minLength": 1},
        "read": {"$ref": "#/$defs/permissionValue"},
        "write": {"$ref": "#/$defs/permissionValue"}
      }
    },
    "index": {
      "type": "object",
      "required": ["fields"],
      "additionalProperties": false,
      "properties": {
        "fields": {
          "type": "array", "minItems": 1, "uniqueItems": true,
          "items": {"type": "string", "minLength": 1}
        },
        "unique": {"type": "boolean"}
      }
    },
    "view": {
      "type": "object",
      "required": ["id", "name"],
      "additionalProperties": false,
      "properties": {
        "id": {
          "anyOf": [
            {"type": "integer", "minimum": 1},
            {"type": "string", "maxLength": 63, "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]*$"}
          ],
          "errorMessage": "must be a positive integer or a string of letters, digits, '_' and '-'"
        },
        "name": {"type": "string", "minLength": 1, "maxLength": 100},
        "filters": {"$ref": "#/$defs/filter"},
        "sorts": {"type": "array", "items": {"$ref": "#/$defs/sort"}}
      }
    },
    "filter": {
      "description": "An and/or tree whose leaves are {field, operator, value}.",
      "type": "object",
      "if": {"required": ["and"]},
      "then": {
        "additionalProperties": false,
        "properties": {"and": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/filter"}}}
      },
      "else": {
        "if": {"required": ["or"]},
        "then": {
          "additionalProperties": false,
          "properties": {"or": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/filter"}}}
        },
        "else": {"$ref": "#/$defs/filterCondition"}
      }
    },
    "filterCondition": {
      "type": "object",
      "required": ["field", "operator"],
      "additionalProperties": false,
      "properties": {
        "field": {"type": "string", "minLength": 1},
        "operator": {
          "enum": ["equals", "notEquals", "in", "notIn", "greaterThan", "greaterThanOrEqual",
                   "lessThan", "lessThanOrEqual", "contains", "notContains", "startsWith",
                   "endsWith", "isEmpty", "isNotEmpty", "isNull", "isNotNull", "isTrue",
                   "isFalse", "containsAny", "containsAll"]
        },
        "value": true
      }
    },
    "sort": {
      "type": "object",
      "required": ["field"],
      "additionalProperties": false,
      "properties": {
        "field": {"type": "string", "minLength": 1},
        "direction": {"enum": ["asc", "desc"]}
      }
    },
    "analytics": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "enabled": {"type": "boolean"},
        "retentionDays": {"type": "integer", "minimum": 1, "maximum": 730},
        "excludedPaths": {"type": "array", "maxItems": 100,
                          "items": {"type": "string", "minLength": 1, "maxLength": 500, "pattern": "^/"}},
        "respectDoNotTrack": {"type": "boolean"},
        "sessionTimeout": {"type": "integer", "minimum": 1, "maximum": 120}
      }
    },
    "bucket": {
      "type": "object",
      "required": ["name"],
      "additionalProperties": false,
      "properties": {
        "name": {"$ref": "#/$defs/bucketName"},
        "public": {"type": "boolean"},
        "maxFileSize": {"type": "integer", "minimum": 1},
        "allowedMimeTypes": {"type": "array", "uniqueItems": true, "items": {"$ref": "#/$defs/mimeType"}},
        "permissions": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "sign": {"$ref": "#/$defs/permissionValue"},
            "signUpload": {"$ref": "#/$defs/permissionValue"},
            "download": {"$ref": "#/$defs/permissionValue"},
            "delete": {"$ref": "#/$defs/permissionValue"}
          }
        }
      }
    },
    "auth": {
      "type": "object",
      "required": ["strategies"],
      "additionalProperties": false,
      "properties": {
        "strategies": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/authStrategy"}},
        "allowSignUp": {"type": "boolean", "default": true},
        "defaultRole": {"$ref": "#/$defs/roleName", "default": "member"},
        "roles": {"type": "array", "items": {"$ref": "#/$defs/role"}},
        "twoFactor": {"type": "boolean", "default": false},
        "organizations": {"type": "boolean", "default": false}
      }
    },
    "authStrategy": {
      "type": "object",
      "required": ["type"],
      "properties": {"type": {"enum": ["emailAndPassword", "magicLink", "emailOtp", "oauth"]}},
      "allOf": [
        {
          "if": {"required": ["type"], "properties": {"type": {"const": "emailAndPassword"}}},
          "then": {
            "additionalProperties": false,
            "properties": {
              "type": true,
              "minPasswordLength": {"type": "integer", "minimum": 6, "maximum": 256, "default": 8},
              "maxPasswordLength": {"type": "integer", "minimum": 8, "maximum": 1024, "default": 128},
              "requireEmailVerification": {"type": "boolean", "default": false},
              "autoSignIn": {"type": "boolean", "default": true}
            }
          }
        },
        {
          "if": {"required": ["type"], "properties": {"type": {"const": "magicLink"}}},
          "then": {"additionalProperties": false, "properties": {"type": true}}
        },
        {
          "if": {"required": ["type"], "properties": {"type": {"const": "emailOtp"}}},
          "then": {"additionalProperties": false, "properties": {"type": true}}
        },
        {
          "if": {"required": ["type"], "properties": {"type": {"const": "oauth"}}},
          "then": {
            "required": ["providers"],
            "additionalProperties": false,
            "properties": {
              "type": true,
              "providers": {
                "type": "array", "minItems": 1, "uniqueItems": true,
                "items": {
                  "oneOf": [
                    {
                      "type": "string", "enum": ["google", "github", "microsoft", "gitlab"],
                      "errorMessage": "must be google, github, microsoft, gitlab or {name, issuer}"
                    },
                    {
                      "type": "object", "required": ["name", "issuer"],
                      "additionalProperties": false,
                      "properties": {
                        "name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$", "maxLength": 64},
                        "issuer": {"type": "string", "pattern": "^https?://", "maxLength": 2048}
                      }
                    }
                  ]
                }
              }
            }
          }
        }
      ]
    },
    "role": {
      "type": "object",
      "required": ["name"],
      "additionalProperties": false,
      "properties": {
        "name": {"$ref": "#/$defs/roleName"},
        "description": {"type": "string", "maxLength": 500},
        "permissions": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "storage": {
              "type": "object",
              "additionalProperties": false,
              "properties": {"sign": {"type": "boolean"}, "signUpload": {"type": "boolean"}}
            }
          }
        }
      }
    }
  }
})json";

// Properties every field allows. `type` is checked by the `field` dispatcher.
constexpr std::string_view kCommonFieldProperties = R"json({
  "id": {"$ref": "#/$defs/fieldId"},
  "name": {"$ref": "#/$defs/fieldName"},
  "type": true,
  "required": {"type": "boolean", "default": false},
  "unique": {"type": "boolean", "default": false},
  "indexed": {"type": "boolean", "default": false}
})json";

struct FieldShape {
  std::string_view types;       // space-separated type names sharing this shape
  std::string_view properties;  // JSON object: the type's own properties
  std::string_view required;    // JSON array: the type's own required properties
};

constexpr std::string_view kTextDefault = R"json({"default": {"type": "string"}})json";

const FieldShape kFieldShapes[] = {
    {"single-line-text long-text phone-number", kTextDefault, "[]"},
    {"email", R"json({"default": {"type": "string", "format": "email"}})json", "[]"},
    {"url", R"json({"default": {"type": "string", "format": "uri"}})json", "[]"},
    {"integer",
     R"json({"min": {"type": "number"}, "max": {"type": "number"}, "default": {"type": "integer"}})json",
     "[]"},
    {"decimal", R"json({
       "precision": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2,
                     "description": "Number of decimal places."},
       "min": {"type": "number"}, "max": {"type": "number"},
       "default": {"type": "number"}})json",
     "[]"},
    {"currency", R"json({
       "currency": {"$ref": "#/$defs/currencyCode"},
       "precision": {"type": "integer", "minimum": 0, "maximum": 10,
                     "description": "Decimal places; defaults to the currency's usual digits (USD 2, JPY 0)."},
       "min": {"type": "number"}, "max": {"type": "number"},
       "symbolPosition": {"enum": ["before", "after"]},
       "negativeFormat": {"enum": ["minus", "parentheses"]},
       "thousandsSeparator": {"enum": ["comma", "period", "space", "none"]},
       "default": {"type": "number"}})json",
     R"json(["currency"])json"},
    {"percentage", R"json({
       "precision": {"type": "integer", "minimum": 0, "maximum": 10, "default": 0},
       "min": {"type": "number"}, "max": {"type": "number"},
       "default": {"type": "number"}})json",
     "[]"},
    {"date datetime time", R"json({
       "format": {"type": "string", "minLength": 1, "description": "Date-format pattern."},
       "dateFormat": {"enum": ["US", "European", "ISO"]},
       "timeFormat": {"enum": ["12-hour", "24-hour"]},
       "includeTime": {"type": "boolean"},
       "timezone": {"type": "string", "minLength": 1, "description": "IANA time zone."},
       "timeZone": {"type": "string", "minLength": 1, "description": "local, or an IANA time zone."},
       "default": {"type": "string"}})json",
     "[]"},
    {"checkbox", R"json({"default": {"type": "boolean"}})json", "[]"},
    {"single-select",
     R"json({"options": {"$ref": "#/$defs/selectOptions"}, "default": {"type": "string"}})json",
     R"json(["options"])json"},
    {"multi-select", R"json({
       "options": {"$ref": "#/$defs/selectOptions"},
       "maxSelections": {"type": "integer", "minimum": 1},
       "default": {"type": "array", "items": {"type": "string"}}})json",
     R"json(["options"])json"},
    {"relationship", R"json({
       "relatedTable": {"type": "string", "minLength": 1, "description": "Name of the related table."},
       "relationType": {"enum": ["many-to-one", "one-to-many", "many-to-many"], "default": "many-to-one"},
       "foreignKey": {"type": "string", "minLength": 1},
       "displayField": {"type": "string", "minLength": 1},
       "onDelete": {"enum": ["restrict", "cascade", "set-null"], "default": "set-null"}})json",
     R"json(["relatedTable"])json"},
    {"created-by updated-by deleted-by updated-at", "{}", "[]"},
    {"attachment", R"json({
       "bucket": {"$ref": "#/$defs/bucketName", "default": "default"},
       "allowedFileTypes": {"type": "array", "uniqueItems": true, "items": {"$ref": "#/$defs/mimeType"}},
       "maxFileSize": {"type": "integer", "minimum": 1}})json",
     "[]"},
    {"multiple-attachments", R"json({
       "bucket": {"$ref": "#/$defs/bucketName", "default": "default"},
       "allowedFileTypes": {"type": "array", "uniqueItems": true, "items": {"$ref": "#/$defs/mimeType"}},
       "maxFileSize": {"type": "integer", "minimum": 1},
       "maxFiles": {"type": "integer", "minimum": 1}})json",
     "[]"},
    {"duration", R"json({
       "displayFormat": {"enum": ["h:mm", "h:mm:ss", "decimal"], "default": "h:mm"},
       "default": {"type": "number", "minimum": 0, "description": "Seconds."}})json",
     "[]"},
    {"json", R"json({
       "schema": {"type": ["object", "boolean"], "description": "JSON Schema the values must match."},
       "default": true})json",
     "[]"},
};

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    words.push_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return words;
}

boost::json::value BuildSchema() {
  boost::json::value schema = boost::json::parse(kBaseSchema);
  auto& defs = schema.at("$defs").as_object();
  const boost::json::object common = boost::json::parse(kCommonFieldProperties).as_object();

  boost::json::array type_names;
  for (FieldType type : AllFieldTypes()) type_names.emplace_back(FieldTypeName(type));

  boost::json::array dispatch;
  for (const FieldShape& shape : kFieldShapes) {
    for (std::string_view type : SplitWords(shape.types)) {
      boost::json::object properties = common;
      const boost::json::value own = boost::json::parse(shape.properties);
      for (const auto& property : own.as_object()) {
        properties[property.key()] = property.value();
      }
      boost::json::object variant;
      variant["additionalProperties"] = false;
      variant["properties"] = std::move(properties);
      const boost::json::value required = boost::json::parse(shape.required);
      if (!required.as_array().empty()) variant["required"] = required;
      const std::string def_name = "field-" + std::string(type);
      defs[def_name] = std::move(variant);

      boost::json::object condition;
      condition["required"] = boost::json::array{"type"};
      condition["properties"] = boost::json::object{{"type", boost::json::object{{"const", type}}}};
      boost::json::object branch;
      branch["if"] = std::move(condition);
      branch["then"] = boost::json::object{{"$ref", "#/$defs/" + def_name}};
      dispatch.push_back(std::move(branch));
    }
  }

  boost::json::object field;
  field["description"] = "A field; the properties it allows depend on its type.";
  field["type"] = "object";
  field["required"] = boost::json::array{"name", "type"};
  field["properties"] =
      boost::json::object{{"id", boost::json::object{{"$ref", "#/$defs/fieldId"}}},
                          {"name", boost::json::object{{"$ref", "#/$defs/fieldName"}}},
                          {"type", boost::json::object{{"enum", std::move(type_names)}}}};
  field["allOf"] = std::move(dispatch);
  defs["field"] = std::move(field);
  return schema;
}

}  // namespace

const boost::json::value& ConfigJsonSchema() {
  static const boost::json::value schema = BuildSchema();
  return schema;
}

const json::JsonSchema& CompiledConfigSchema() {
  static const json::JsonSchema compiled = [] {
    auto result = json::JsonSchema::Compile(ConfigJsonSchema());
    if (!result.ok()) std::abort();  // the schema is data in this file; a test compiles it
    return std::move(result).value();
  }();
  return compiled;
}

}  // namespace cairn::config
