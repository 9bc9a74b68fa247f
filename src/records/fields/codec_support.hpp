// Helpers shared by the field codecs: error messages, text checks, column output and the
// nullable JSON Schema shape. Internal to records/fields/.
#pragma once

#include "records/field_codec.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "common/error.hpp"
#include "config/model.hpp"
#include "db/row.hpp"

namespace cairn::records::fields {

// Error::Validation with a message about the value (the caller names the field).
Error Invalid(std::string message);
// "must be <expected>, not <what input is>" (`must be a string, not a number`).
Error WrongKind(const boost::json::value& input, std::string_view expected);
// `error` about the item at `index` of an array (`item 2: …`).
Error AtItem(std::size_t index, Error error);
// The error for writing a server-controlled value.
Error ReadOnly(std::string_view why);

// `a number`, `an array`, … for messages.
std::string_view KindName(const boost::json::value& input);
// `text` as a JSON string for a message, shortened to 40 characters (`"abc…"`).
std::string Quoted(std::string_view text);
// `a, b, c`
std::string JoinList(const std::vector<std::string>& words);

// Which control characters a text may hold. C1 controls (U+0080–U+009F), DEL and NUL are never
// allowed; C0 controls only as listed.
enum class Controls { kNone, kTab, kTabAndLineBreaks };

struct TextRules {
  std::size_t max_chars = 0;  // 0: no limit
  std::size_t min_chars = 0;
  Controls controls = Controls::kNone;
};
// The string in `input` when it is a string of valid UTF-8 that meets `rules`; else the error.
// `expected` names what is accepted (`a single line of text`).
std::optional<Error> CheckText(const boost::json::value& input, const TextRules& rules,
                               std::string_view expected);

// Appends the text column as a JSON string, or null.
void AppendTextColumn(const db::Row& row, int column, std::string& out);
// A codec whose column holds text written back as a JSON string (dates, times, text types…). By
// default it compares as text and `q` searches it; dates, times and authors say otherwise.
class TextColumnCodec : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kText};
  }
  OperandKind Comparison() const override { return OperandKind::kText; }
  bool Searchable() const override { return true; }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    AppendTextColumn(row, column, out);
  }
};

// Appends the column's JSON text as it is stored (written by a codec, so valid JSON), or null.
void AppendJsonColumn(const db::Row& row, int column, std::string& out);

// `schema` with its `type` widened to [type, "null"] (and null added to any `enum`) unless the
// field is required.
boost::json::value NullableSchema(const config::Field& field, boost::json::object schema);
// Adds `minimum`/`maximum` from the field's min/max (as written in the config).
void AddBounds(const config::Field& field, boost::json::object& schema);

}  // namespace cairn::records::fields
