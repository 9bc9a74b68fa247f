#include "config/field_checks.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "common/email.hpp"
#include "common/json.hpp"
#include "config/check_helpers.hpp"
#include "config/locale_data.hpp"
#include "config/value_formats.hpp"

namespace cairn::config {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;
using checks::ArrayAt;
using checks::Hint;
using checks::Join;
using checks::NumberAt;
using checks::StringAt;
using json::PathIndex;
using json::PathKey;

class FieldValueChecker {
 public:
  explicit FieldValueChecker(std::vector<json::SchemaIssue>& issues) : issues_(issues) {}

  void Check(FieldType type, const object& f, const std::string& path) {
    switch (type) {
      case FieldType::kInteger:
      case FieldType::kDecimal:
      case FieldType::kCurrency:
      case FieldType::kPercentage:
        CheckNumberField(type, f, path);
        break;
      case FieldType::kEmail:
        if (auto text = StringAt(f, "default"); text && !email::IsValidAddress(*text)) {
          Add(PathKey(path, "default"),
              "'" + std::string(*text) + "' is not a valid email address");
        }
        break;
      case FieldType::kUrl:
        if (auto text = StringAt(f, "default"); text && !IsValidUrl(*text)) {
          Add(PathKey(path, "default"),
              "'" + std::string(*text) +
                  "' is not a valid URL (absolute, with scheme http, https, ftp, mailto or tel)");
        }
        break;
      case FieldType::kDate:
      case FieldType::kDatetime:
      case FieldType::kTime:
        CheckDateField(type, f, path);
        break;
      case FieldType::kSingleSelect:
      case FieldType::kMultiSelect:
        CheckSelectField(type, f, path);
        break;
      case FieldType::kJson:
        CheckJsonField(f, path);
        break;
      default:
        break;
    }
  }

 private:
  void Add(std::string path, std::string message) {
    issues_.push_back({std::move(path), std::move(message)});
  }

  void CheckNumberField(FieldType type, const object& f, const std::string& path) {
    const auto min = NumberAt(f, "min");
    const auto max = NumberAt(f, "max");
    if (min && max && *min > *max) {
      Add(PathKey(path, "min"), "min (" + json::Serialize(f.at("min")) + ") is greater than max (" +
                                    json::Serialize(f.at("max")) + ")");
    }
    if (type == FieldType::kCurrency) {
      if (auto code = StringAt(f, "currency");
          code && code->size() == 3 && !IsKnownCurrency(*code)) {
        Add(PathKey(path, "currency"),
            "unknown currency code '" + std::string(*code) + "' (not an ISO 4217 currency)");
      }
    }
    const auto fallback = NumberAt(f, "default");
    if (!fallback) return;
    const std::string default_path = PathKey(path, "default");
    const std::string written = json::Serialize(f.at("default"));
    if (min && *fallback < *min) {
      Add(default_path,
          "default (" + written + ") is less than min (" + json::Serialize(f.at("min")) + ")");
    } else if (max && *fallback > *max) {
      Add(default_path,
          "default (" + written + ") is greater than max (" + json::Serialize(f.at("max")) + ")");
    }
    std::optional<int> scale;
    if (auto precision = NumberAt(f, "precision")) {
      scale = static_cast<int>(*precision);
    } else if (type == FieldType::kDecimal) {
      scale = 2;
    } else if (type == FieldType::kPercentage) {
      scale = 0;
    } else if (type == FieldType::kCurrency) {
      if (auto code = StringAt(f, "currency")) scale = CurrencyFractionDigits(*code);
    }
    if (scale && type != FieldType::kInteger && DecimalPlaces(*fallback) > *scale) {
      Add(default_path, "default (" + written + ") has more than " + std::to_string(*scale) +
                            " decimal place" + (*scale == 1 ? "" : "s"));
    }
  }

  void CheckDateField(FieldType type, const object& f, const std::string& path) {
    if (auto text = StringAt(f, "default")) {
      const bool valid = type == FieldType::kDate       ? IsValidDate(*text)
                         : type == FieldType::kDatetime ? IsValidDatetime(*text)
                                                        : IsValidTime(*text);
      if (!valid) {
        const char* expected =
            type == FieldType::kDate ? "a date as YYYY-MM-DD"
            : type == FieldType::kDatetime
                ? "an ISO 8601 date-time with offset, such as 2024-05-01T09:00:00Z"
                : "a time as HH:MM or HH:MM:SS";
        Add(PathKey(path, "default"),
            "'" + std::string(*text) + "' is not valid: expected " + expected);
      }
    }
    if (auto pattern = StringAt(f, "format"); pattern && !IsValidDatePattern(*pattern)) {
      Add(PathKey(path, "format"),
          "'" + std::string(*pattern) +
              "' is not a date pattern (use Unicode date symbols such as yyyy-MM-dd HH:mm, with "
              "literal text in single quotes)");
    }
    if (auto zone = StringAt(f, "timezone"); zone && !IsKnownTimeZone(*zone)) {
      Add(PathKey(path, "timezone"), "unknown time zone '" + std::string(*zone) +
                                         "' (expected an IANA name such as Europe/Paris)");
    }
    if (auto zone = StringAt(f, "timeZone"); zone && *zone != "local" && !IsKnownTimeZone(*zone)) {
      Add(PathKey(path, "timeZone"),
          "unknown time zone '" + std::string(*zone) +
              "' (expected 'local' or an IANA name such as Europe/Paris)");
    }
  }

  void CheckSelectField(FieldType type, const object& f, const std::string& path) {
    std::vector<std::string> options;
    if (const array* list = ArrayAt(f, "options")) {
      for (const value& option : *list) {
        if (option.is_string()) options.emplace_back(option.get_string());
      }
    }
    const value* fallback = f.if_contains("default");
    if (!fallback) return;
    const std::string default_path = PathKey(path, "default");
    auto check_option = [&](std::string_view text, const std::string& at) {
      if (std::find(options.begin(), options.end(), text) != options.end()) return;
      Add(at, "'" + std::string(text) + "' is not one of the options" + Hint(text, options) + ": " +
                  Join(options));
    };
    if (type == FieldType::kSingleSelect) {
      if (fallback->is_string()) check_option(fallback->get_string(), default_path);
      return;
    }
    if (!fallback->is_array()) return;
    const array& values = fallback->get_array();
    std::vector<std::string_view> seen;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_string()) continue;
      const std::string_view text = values[i].get_string();
      if (std::find(seen.begin(), seen.end(), text) != seen.end()) {
        Add(PathIndex(default_path, i), "duplicate value '" + std::string(text) + "'");
        continue;
      }
      seen.push_back(text);
      check_option(text, PathIndex(default_path, i));
    }
    if (auto max = NumberAt(f, "maxSelections"); max && static_cast<double>(values.size()) > *max) {
      Add(default_path, "default has " + std::to_string(values.size()) +
                            " values but maxSelections is " +
                            json::Serialize(f.at("maxSelections")));
    }
  }

  void CheckJsonField(const object& f, const std::string& path) {
    const value* schema = f.if_contains("schema");
    if (!schema || !(schema->is_object() || schema->is_bool())) return;
    auto compiled = json::JsonSchema::Compile(*schema);
    if (!compiled.ok()) {
      Add(PathKey(path, "schema"), compiled.error().message);
      return;
    }
    if (const value* fallback = f.if_contains("default")) {
      std::vector<json::SchemaIssue> issues;
      compiled->Validate(*fallback, issues, PathKey(path, "default"));
      for (auto& issue : issues) {
        Add(std::move(issue.path), "default does not match the field's schema: " + issue.message);
      }
    }
  }

  std::vector<json::SchemaIssue>& issues_;
};

}  // namespace

void CheckFieldValues(FieldType type, const boost::json::object& field, const std::string& path,
                      std::vector<json::SchemaIssue>& issues) {
  FieldValueChecker(issues).Check(type, field, path);
}

}  // namespace cairn::config
