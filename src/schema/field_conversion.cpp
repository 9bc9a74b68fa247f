#include "schema/field_conversion.hpp"

#include <algorithm>

#include <boost/json/serialize.hpp>

#include "common/json_input.hpp"
#include "db/db_error.hpp"
#include "records/field_codec.hpp"
#include "schema/limits.hpp"

namespace cairn::schema {
namespace {

using config::FieldType;

// Types whose value means something beyond itself (a record of another table, a stored file, who
// or when the server wrote it): they never convert to or from another type.
bool Fixed(FieldType type) {
  switch (type) {
    case FieldType::kRelationship:
    case FieldType::kAttachment:
    case FieldType::kMultipleAttachments:
    case FieldType::kCreatedBy:
    case FieldType::kUpdatedBy:
    case FieldType::kDeletedBy:
    case FieldType::kUpdatedAt:
      return true;
    default:
      return false;
  }
}

bool IsText(FieldType type) {
  return type == FieldType::kSingleLineText || type == FieldType::kLongText ||
         type == FieldType::kEmail || type == FieldType::kUrl || type == FieldType::kPhoneNumber;
}

bool IsNumber(FieldType type) {
  return type == FieldType::kInteger || type == FieldType::kDecimal ||
         type == FieldType::kCurrency || type == FieldType::kPercentage ||
         type == FieldType::kDuration;
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// `-?(0|[1-9][0-9]*)(\.[0-9]+)?`: a number as a person writes it. Text such as `007`, `+5`,
// ` 5` or `1e3` is not converted: reading it as a number would drop what the text says.
bool IsPlainNumeral(std::string_view text) {
  std::size_t pos = 0;
  if (pos < text.size() && text[pos] == '-') ++pos;
  const std::size_t start = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  if (pos == start || (text[start] == '0' && pos - start > 1)) return false;
  if (pos == text.size()) return true;
  if (text[pos] != '.') return false;
  const std::size_t fraction = ++pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  return pos > fraction && pos == text.size();
}

Error NotConvertible(std::string message) {
  return Error::Validation(std::move(message));
}

// A stored value, and the text its numbers were written as (`12.50`, which a double would not
// keep exactly).
struct Stored {
  const boost::json::value& value;
  const json::NumberTexts& numbers;
};

std::string NumberText(const Stored& stored) {
  if (const std::string* written = stored.numbers.Find(stored.value)) return *written;
  return boost::json::serialize(stored.value);
}

Result<db::Value> Write(const config::Field& to, const boost::json::value& input) {
  return records::CodecOf(to).Parse(to, input);
}

Result<db::Value> ConvertValue(const FieldConversion& conversion, const Stored& stored) {
  const config::Field& from = conversion.from;
  const config::Field& to = conversion.to;
  const boost::json::value& value = stored.value;
  // The same value written again: the types agree on what it is (the codec still checks it).
  const auto same = [&]() { return records::ParseFieldValue(to, value, stored.numbers); };
  if (value.is_null()) return db::Value(db::Null{});
  if (Fixed(from.type) || Fixed(to.type)) {
    if (from.type == to.type && from.type != FieldType::kRelationship) return same();
    if (from.type == to.type) {
      return NotConvertible("a reference to a record of \"" + from.related_table +
                            "\" does not convert to one of \"" + to.related_table + "\"");
    }
    return NotConvertible("a " + std::string(config::FieldTypeName(from.type)) +
                          " value does not convert to " +
                          std::string(config::FieldTypeName(to.type)));
  }
  if (to.type == FieldType::kJson) return same();
  const std::string to_name(config::FieldTypeName(to.type));
  switch (value.kind()) {
    case boost::json::kind::bool_:
      if (to.type == FieldType::kCheckbox) return same();
      if (to.type == FieldType::kInteger) return Write(to, value.get_bool() ? 1 : 0);
      if (IsText(to.type)) return Write(to, value.get_bool() ? "true" : "false");
      break;
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
      if (IsNumber(to.type)) return same();
      if (to.type == FieldType::kCheckbox) {
        if (value.is_int64() && (value.get_int64() == 0 || value.get_int64() == 1)) {
          return Write(to, value.get_int64() == 1);
        }
        return NotConvertible("only 0 and 1 convert to checkbox; got " + NumberText(stored));
      }
      if (IsText(to.type) || to.type == FieldType::kSingleSelect) {
        return Write(to, boost::json::string(NumberText(stored)));
      }
      break;
    case boost::json::kind::string: {
      const std::string_view text = value.get_string();
      if (IsNumber(to.type)) {
        if (!IsPlainNumeral(text)) {
          return NotConvertible("\"" + std::string(text) +
                                "\" is not a plain number (digits, an optional leading - and "
                                "decimal point)");
        }
        return same();  // the number codecs read numeric strings exactly
      }
      if (to.type == FieldType::kCheckbox) {
        if (text == "true" || text == "false") return Write(to, text == "true");
        return NotConvertible("only \"true\" and \"false\" convert to checkbox");
      }
      if (from.type == FieldType::kDate && to.type == FieldType::kDatetime) {
        return Write(to, boost::json::string(std::string(text) + "T00:00:00Z"));  // midnight UTC
      }
      if (to.type == FieldType::kMultiSelect) return Write(to, boost::json::array{value});
      if (IsText(to.type) || to.type == FieldType::kSingleSelect || to.type == FieldType::kDate ||
          to.type == FieldType::kDatetime || to.type == FieldType::kTime) {
        return same();
      }
      break;
    }
    case boost::json::kind::array: {
      if (to.type == FieldType::kMultiSelect) return same();
      const auto& items = value.get_array();
      if ((IsText(to.type) || to.type == FieldType::kSingleSelect) && items.size() == 1 &&
          items[0].is_string()) {
        return Write(to, items[0]);
      }
      if (IsText(to.type) || to.type == FieldType::kSingleSelect) {
        return NotConvertible("only a list of one option converts to " + to_name);
      }
      break;
    }
    case boost::json::kind::object:
    case boost::json::kind::null:
      break;
  }
  return NotConvertible("a " + std::string(config::FieldTypeName(from.type)) + " value (" +
                        boost::json::serialize(value) + ") does not convert to " + to_name);
}

}  // namespace

Result<db::Value> ConvertStoredJson(const FieldConversion& conversion,
                                    std::string_view stored_json) {
  // Inside an array: the number texts are kept by node, and only an array's elements keep their
  // place when the parsed document moves.
  std::string wrapped = "[";
  wrapped += stored_json;
  wrapped += ']';
  CAIRN_ASSIGN_OR_RETURN(const json::InputDocument document,
                         json::ParseInput(wrapped, kMaxStoredJsonDepth + 1, "stored value"));
  const boost::json::array& items = document.value.as_array();
  if (items.size() != 1) return Error::Validation("the stored value is not one JSON value");
  return ConvertValue(conversion, Stored{items[0], document.numbers});
}

Error UnconvertibleError(const std::string& label, const config::Field* from,
                         const config::Field* to, std::optional<std::int64_t> record,
                         const std::string& reason) {
  std::string message = "field \"" + label + "\" cannot change its type";
  if (from != nullptr && to != nullptr) {
    message += " from " + std::string(config::FieldTypeName(from->type)) + " to " +
               std::string(config::FieldTypeName(to->type));
  }
  message += ": ";
  message += record ? "record " + std::to_string(*record) + " holds a value" : "rows hold values";
  message += " that cannot be converted";
  if (!reason.empty()) message += " (" + reason + ")";
  message += "; change or clear that value first, or add a new field instead";
  Error error = Error::Validation(message, {{label, message}});
  error.reason = "UNCONVERTIBLE_TYPE_CHANGE";
  return error;
}

Result<std::vector<ConvertedValue>> ConvertStoredValues(db::Connection& connection,
                                                        const FieldConversion& conversion,
                                                        const std::string& table,
                                                        const std::string& column) {
  const records::FieldCodec& codec = records::CodecOf(conversion.from);
  std::vector<std::pair<std::int64_t, std::string>> stored;
  CAIRN_TRY(connection.Execute("SELECT \"id\", " + db::Identifier(column).quoted() + " FROM " +
                                   db::Identifier(table).quoted() + " WHERE " +
                                   db::Identifier(column).quoted() + " IS NOT NULL ORDER BY \"id\"",
                               {}, [&](const db::Row& row) {
                                 std::string text;
                                 codec.AppendJson(conversion.from, row, 1, text);
                                 stored.emplace_back(row.GetInt64(0), std::move(text));
                               }));
  std::vector<ConvertedValue> converted;
  converted.reserve(stored.size());
  for (auto& [record, text] : stored) {
    auto value = ConvertStoredJson(conversion, text);
    if (!value.ok()) {
      return UnconvertibleError(conversion.label, &conversion.from, &conversion.to, record,
                                value.error().message);
    }
    converted.push_back({record, std::move(*value)});
  }
  return converted;
}

Status WriteConvertedValues(db::Connection& connection, const FieldConversion& conversion,
                            const std::vector<ConvertedValue>& values) {
  const db::Dialect& dialect = connection.dialect();
  const std::string table = db::Identifier(conversion.table).quoted();
  const std::string column = db::Identifier(conversion.column).quoted();
  if (!dialect.shared_server()) {
    // No round trips to save (SQLite): one cached statement per row is the cheapest.
    const std::string sql = "UPDATE " + table + " SET " + column + " = ? WHERE \"id\" = ?";
    for (const ConvertedValue& converted : values) {
      Result<std::int64_t> written =
          connection.Execute(sql, {converted.value, db::Value(converted.record)});
      if (written.ok()) continue;
      if (db::ErrorKindOf(written.error()) != db::DbErrorKind::kUnique) return written.error();
      return UnconvertibleError(
          conversion.label, &conversion.from, &conversion.to, converted.record,
          "its converted value duplicates another record's in a unique index");
    }
    return {};
  }
  const std::optional<db::ColumnType> type = records::CodecOf(conversion.to).Column(conversion.to);
  if (!type) return Error::Internal("field " + conversion.label + " has no column to convert into");
  // A server a round trip away (PostgreSQL): many rows per statement. Bound values in VALUES
  // have no column to take their type from (they would be read as text): each is cast to the
  // type it already is. Joined by id, so each statement costs one lookup per row (VALUES
  // columns are `column1`, `column2`).
  const std::string row = "(CAST(? AS " + dialect.ColumnTypeSql({db::ColumnKind::kInt64}) +
                          "), CAST(? AS " + dialect.ColumnTypeSql(*type) + "))";
  for (std::size_t first = 0; first < values.size(); first += kConversionWriteBatch) {
    const std::size_t end = std::min(values.size(), first + kConversionWriteBatch);
    std::string sql = "UPDATE " + table + " SET " + column + " = \"v\".\"column2\" FROM (VALUES ";
    std::vector<db::Value> params;
    params.reserve(2 * (end - first));
    for (std::size_t i = first; i < end; ++i) {
      if (i > first) sql += ", ";
      sql += row;
      params.emplace_back(values[i].record);
      params.push_back(values[i].value);
    }
    sql += ") AS \"v\" WHERE " + table + ".\"id\" = \"v\".\"column1\"";
    Result<std::int64_t> written = connection.Execute(sql, params);
    if (written.ok()) continue;
    if (db::ErrorKindOf(written.error()) != db::DbErrorKind::kUnique) return written.error();
    return UnconvertibleError(conversion.label, &conversion.from, &conversion.to, std::nullopt,
                              "the converted values of records " +
                                  std::to_string(values[first].record) + " to " +
                                  std::to_string(values[end - 1].record) +
                                  " duplicate other records' values in a unique index");
  }
  return {};
}

}  // namespace cairn::schema
