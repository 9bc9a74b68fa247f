#include "records/record_views.hpp"

#include "common/json.hpp"
#include "records/query/operand.hpp"
#include "records/record_service.hpp"
#include "records/record_writes.hpp"

namespace cairn::records {
namespace {

// What the caller may see of a view: conditions and sorts on fields it may not read are left
// out (D21: such a field must look like one that does not exist). The view's records still go
// through the whole filter, as the view's author wrote it.
class ViewRedactor {
 public:
  ViewRedactor(const config::Table& table, const access::TableAccess& access)
      : table_(table), access_(access) {}

  bool Readable(std::string_view field) const {
    return query::ResolveOperand(table_, access_, field, "filter").ok();
  }

  // A view's filter (and/or groups of {field, operator, value} conditions), without the
  // conditions on unreadable fields; null when nothing readable is left.
  boost::json::value Filter(const boost::json::value& node) const {
    if (!node.is_object()) return nullptr;
    const boost::json::object& object = node.get_object();
    for (const char* group : {"and", "or"}) {
      const boost::json::value* items = object.if_contains(group);
      if (items == nullptr || !items->is_array()) continue;
      boost::json::array kept;
      for (const boost::json::value& item : items->get_array()) {
        boost::json::value visible = Filter(item);
        if (!visible.is_null()) kept.push_back(std::move(visible));
      }
      if (kept.empty()) return nullptr;
      return boost::json::object{{group, std::move(kept)}};
    }
    // Otherwise a {field, operator, value} condition (the config schema allows nothing else).
    const boost::json::value* field = object.if_contains("field");
    return field && field->is_string() && Readable(field->get_string()) ? node : nullptr;
  }

 private:
  const config::Table& table_;
  const access::TableAccess& access_;
};

void AppendView(const config::View& view, const ViewRedactor& redactor, std::string& out) {
  out += R"({"id":)";
  json::AppendString(out, view.id);
  out += R"(,"name":)";
  json::AppendString(out, view.name);
  out += R"(,"filters":)";
  json::Append(out, redactor.Filter(view.filters));
  out += R"(,"sorts":[)";
  bool first = true;
  for (const config::ViewSort& sort : view.sorts) {
    if (!redactor.Readable(sort.field)) continue;
    if (!first) out += ',';
    first = false;
    out += R"({"field":)";
    json::AppendString(out, sort.field);
    out += sort.descending ? R"(,"direction":"desc"})" : R"(,"direction":"asc"})";
  }
  out += "]}";
}

}  // namespace

const config::View* FindView(const config::Table& table, std::string_view id_or_name) {
  for (const config::View& view : table.views) {
    if (view.id == id_or_name) return &view;
  }
  for (const config::View& view : table.views) {
    if (view.name == id_or_name) return &view;
  }
  return nullptr;
}

std::string ViewSortText(const config::View& view) {
  std::string out;
  for (const config::ViewSort& sort : view.sorts) {
    if (!out.empty()) out += ',';
    out += sort.field + (sort.descending ? ":desc" : ":asc");
  }
  return out;
}

Result<std::string> RecordService::Views(const config::Table& table, const Actor& actor) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(access::Action::kRead)) return detail::TableNotFound();
  const ViewRedactor redactor(table, access);
  std::string out = R"({"views":[)";
  for (std::size_t i = 0; i < table.views.size(); ++i) {
    if (i > 0) out += ',';
    AppendView(table.views[i], redactor, out);
  }
  out += "]}";
  return out;
}

Result<std::string> RecordService::View(const config::Table& table, const Actor& actor,
                                        std::string_view view_id) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(access::Action::kRead)) return detail::TableNotFound();
  const config::View* view = FindView(table, view_id);
  if (view == nullptr) return Error::NotFound("View not found");
  std::string out;
  AppendView(*view, ViewRedactor(table, access), out);
  return out;
}

}  // namespace cairn::records
