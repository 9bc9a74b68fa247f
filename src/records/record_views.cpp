#include "records/record_views.hpp"

#include "common/json.hpp"
#include "records/record_service.hpp"
#include "records/record_writes.hpp"

namespace cairn::records {
namespace {

void AppendView(const config::View& view, std::string& out) {
  out += R"({"id":)";
  json::AppendString(out, view.id);
  out += R"(,"name":)";
  json::AppendString(out, view.name);
  out += R"(,"filters":)";
  json::Append(out, view.filters);
  out += R"(,"sorts":[)";
  for (std::size_t i = 0; i < view.sorts.size(); ++i) {
    if (i > 0) out += ',';
    out += R"({"field":)";
    json::AppendString(out, view.sorts[i].field);
    out += view.sorts[i].descending ? R"(,"direction":"desc"})" : R"(,"direction":"asc"})";
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
  if (!access_.For(table, actor.role).Can(access::Action::kRead)) return detail::TableNotFound();
  std::string out = R"({"views":[)";
  for (std::size_t i = 0; i < table.views.size(); ++i) {
    if (i > 0) out += ',';
    AppendView(table.views[i], out);
  }
  out += "]}";
  return out;
}

Result<std::string> RecordService::View(const config::Table& table, const Actor& actor,
                                        std::string_view view_id) {
  if (!access_.For(table, actor.role).Can(access::Action::kRead)) return detail::TableNotFound();
  const config::View* view = FindView(table, view_id);
  if (view == nullptr) return Error::NotFound("View not found");
  std::string out;
  AppendView(*view, out);
  return out;
}

}  // namespace cairn::records
