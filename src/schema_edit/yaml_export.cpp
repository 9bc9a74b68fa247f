#include "schema_edit/yaml_export.hpp"

#include <yaml-cpp/yaml.h>
#include <boost/json.hpp>

namespace cairn::schema_edit {
namespace {

void Emit(YAML::Emitter& out, const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null:
      out << YAML::Null;
      break;
    case boost::json::kind::bool_:
      out << value.get_bool();
      break;
    case boost::json::kind::int64:
      out << value.get_int64();
      break;
    case boost::json::kind::uint64:
      out << value.get_uint64();
      break;
    case boost::json::kind::double_:
      // JSON's shortest round-trip text (a YAML float reads it back as the same number).
      out << boost::json::serialize(value);
      break;
    case boost::json::kind::string:
      // Always quoted, so text such as `yes`, `1.0` or `null` stays text.
      out << YAML::DoubleQuoted << std::string(value.get_string());
      break;
    case boost::json::kind::array:
      out << YAML::BeginSeq;
      for (const auto& item : value.get_array()) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case boost::json::kind::object:
      out << YAML::BeginMap;
      for (const auto& member : value.get_object()) {
        out << YAML::Key << std::string(member.key()) << YAML::Value;
        Emit(out, member.value());
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

std::string ToYaml(const boost::json::value& document) {
  YAML::Emitter out;
  Emit(out, document);
  std::string text = out.c_str();
  text += '\n';
  return text;
}

}  // namespace cairn::schema_edit
