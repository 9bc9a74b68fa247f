// relationship. many-to-one: the related record's id, as a string ("7") or an integer on the
// wire, bound as int64 and written back as "7". many-to-many: an array of distinct ids; Parse
// returns db::Json of the ids as a JSON integer array (`[3,7]`, in the order given) for the
// record service, which writes the junction table. one-to-many: read-only, computed from the
// other side. Whether an id exists and is readable is checked by the record service.
//
// Reading many-to-many and one-to-many (they have no column of their own): the column passed to
// AppendJson holds the related ids as JSON array text (json_group_array / json_agg, integers or
// digit strings), or NULL for none; the output is always an array of id strings (`["3","7"]`).
#include <cstdint>
#include <limits>
#include <unordered_set>

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"
#include "records/limits.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::string_view kIdPattern = "^[1-9][0-9]*$";
constexpr std::string_view kAcceptedId = "a record id (such as \"7\")";

std::optional<std::int64_t> IdFromText(std::string_view text) {
  if (text.empty() || text.size() > 19 || text[0] == '0') return std::nullopt;
  std::uint64_t id = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    id = id * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (id > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(id);
}

Result<std::int64_t> ParseId(const boost::json::value& input) {
  std::optional<std::int64_t> id;
  if (input.is_string()) {
    id = IdFromText(input.get_string());
  } else if (input.is_int64()) {
    if (input.get_int64() > 0) id = input.get_int64();
  } else if (!input.is_number()) {  // other numbers (fractions, beyond int64) are no ids
    return Invalid("must be " + std::string(kAcceptedId) + ", not " + std::string(KindName(input)));
  }
  if (!id) {
    const std::string got =
        input.is_string() ? Quoted(input.get_string()) : boost::json::serialize(input);
    return Invalid("must be " + std::string(kAcceptedId) + ": a positive whole number; got " + got);
  }
  return *id;
}

Result<db::Value> ParseMany(const boost::json::value& input) {
  if (!input.is_array()) {
    return WrongKind(input, "an array of record ids (such as [\"3\", \"7\"])");
  }
  const boost::json::array& items = input.get_array();
  if (items.size() > kMaxLinkedRecords) {
    return Invalid("links at most " + std::to_string(kMaxLinkedRecords) + " records; got " +
                   std::to_string(items.size()));
  }
  std::unordered_set<std::int64_t> seen;
  seen.reserve(items.size());
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto parsed = ParseId(items[i]);
    if (!parsed.ok()) return AtItem(i, std::move(parsed).error());
    const std::int64_t id = *parsed;
    if (!seen.insert(id).second) {
      return AtItem(i, Invalid("record id \"" + std::to_string(id) +
                               "\" is listed twice; ids must be distinct"));
    }
    if (i > 0) text += ',';
    text += std::to_string(id);
  }
  text += ']';
  return db::Value(db::Json{std::move(text)});
}

void AppendIdArray(const db::Row& row, int column, std::string& out) {
  out += '[';
  if (!row.IsNull(column)) {
    boost::system::error_code ec;
    const boost::json::value ids = boost::json::parse(row.GetText(column), ec);
    if (!ec && ids.is_array()) {
      bool first = true;
      for (const boost::json::value& id : ids.get_array()) {
        std::string digits;
        if (id.is_int64()) {
          digits = std::to_string(id.get_int64());
        } else if (id.is_string() && IdFromText(id.get_string())) {
          digits = std::string(id.get_string());
        } else {
          continue;  // NULL from an outer join's aggregate
        }
        if (!first) out += ',';
        first = false;
        out += '"';
        out += digits;
        out += '"';
      }
    }
  }
  out += ']';
}

class RelationshipCodecImpl final : public FieldCodec {
 public:
  // Many-to-one holds the related id; the other kinds live in a junction table or on the
  // other side.
  std::optional<db::ColumnType> Column(const config::Field& field) const override {
    if (field.relation_type != config::RelationType::kManyToOne) return std::nullopt;
    return db::ColumnType{db::ColumnKind::kInt64};
  }
  OperandKind Comparison() const override { return OperandKind::kReference; }

  bool Writable(const config::Field& field) const override {
    return field.relation_type != config::RelationType::kOneToMany;
  }

  Result<db::Value> Parse(const config::Field& field,
                          const boost::json::value& input) const override {
    switch (field.relation_type) {
      case config::RelationType::kOneToMany:
        return ReadOnly("a one-to-many relationship is computed from the related table \"" +
                        field.related_table + "\"; set it there");
      case config::RelationType::kManyToMany:
        if (input.is_null()) return db::Value(db::Null{});
        return ParseMany(input);
      case config::RelationType::kManyToOne:
        break;
    }
    if (input.is_null()) return db::Value(db::Null{});
    CAIRN_ASSIGN_OR_RETURN(const std::int64_t id, ParseId(input));
    return db::Value(id);
  }

  void AppendJson(const config::Field& field, const db::Row& row, int column,
                  std::string& out) const override {
    if (field.relation_type != config::RelationType::kManyToOne) {
      AppendIdArray(row, column, out);
      return;
    }
    if (row.IsNull(column)) {
      out += "null";
      return;
    }
    out += '"';
    out += std::to_string(row.GetInt64(column));
    out += '"';
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    const boost::json::object id{{"type", "string"}, {"pattern", kIdPattern}};
    if (field.relation_type == config::RelationType::kManyToOne) {
      return NullableSchema(field, id);
    }
    boost::json::object schema{{"type", "array"}, {"items", id}, {"uniqueItems", true}};
    if (field.relation_type == config::RelationType::kOneToMany) {
      schema["readOnly"] = true;
      return schema;  // always an array on output, never null
    }
    return NullableSchema(field, std::move(schema));
  }
};

}  // namespace

const FieldCodec& RelationshipCodec() {
  static const RelationshipCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
