#include "api/schema_api.hpp"

#include <charconv>
#include <stdexcept>

#include <boost/json.hpp>

#include "api/session_layer.hpp"
#include "common/time.hpp"
#include "schema_edit/yaml_export.hpp"

namespace cairn::api {
namespace {

using http::Request;
using http::Response;
using schema_edit::SchemaEditor;

constexpr std::string_view kPrefix = "/api/admin/schema";
constexpr std::string_view kTag = "schema";

// The admin's user id; every role but admin is refused (the session layer refused nobody).
Result<std::string> AdminId(const Request& request) {
  const auth::Caller* caller = CallerOf(request);
  if (caller == nullptr) throw std::logic_error("schema routes need requires_session");
  if (caller->user.role != "admin") return Error::Forbidden("Only admins may edit the schema");
  return caller->user.id;
}

Status RequireAdmin(const Request& request) {
  CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
  (void)user;
  return {};
}

boost::json::value Schema(const char* text) {
  return boost::json::parse(text);
}

boost::json::value OptionalIso(std::int64_t millis) {
  if (millis == 0) return nullptr;
  return boost::json::value(time::FormatIso(millis));
}

boost::json::object DraftJson(const schema_edit::DraftView& view) {
  boost::json::object out;
  out["snapshot"] = view.draft.snapshot;
  out["baseVersion"] = view.draft.base_version;
  out["updatedAt"] = OptionalIso(view.draft.updated_at);
  out["updatedBy"] =
      view.draft.updated_by ? boost::json::value(*view.draft.updated_by) : boost::json::value();
  out["dirty"] = view.dirty;
  out["exists"] = view.exists;
  out["stale"] = view.stale;
  return out;
}

boost::json::object VersionInfoJson(const schema_edit::VersionInfo& info) {
  boost::json::object out;
  out["version"] = info.version;
  out["source"] = info.source;
  out["restoredFromVersion"] =
      info.restored_from ? boost::json::value(*info.restored_from) : boost::json::value();
  out["publishedBy"] =
      info.published_by ? boost::json::value(*info.published_by) : boost::json::value();
  out["publishedAt"] = time::FormatIso(info.published_at);
  out["message"] = info.message;
  return out;
}

boost::json::array DeferredJson(const std::vector<schema::DeferredDrop>& drops) {
  boost::json::array out;
  for (const auto& drop : drops) {
    out.push_back(
        {{"name", drop.label},
         {"kind", drop.kind},
         {"table", drop.table},
         {"column", drop.column.empty() ? boost::json::value() : boost::json::value(drop.column)}});
  }
  return out;
}

boost::json::object PublishJson(const schema_edit::PublishOutcome& outcome) {
  boost::json::array applied;
  for (const auto& line : outcome.migration.descriptions) applied.emplace_back(line);
  boost::json::object out;
  out["version"] = outcome.version;
  out["activeVersion"] = outcome.version;
  out["previousVersion"] = outcome.previous_version;
  out["migration"] = {{"applied", std::move(applied)},
                      {"deferred", DeferredJson(outcome.migration.deferred)}};
  return out;
}

std::string MessageOf(const Request& request) {
  if (!request.json || !request.json->is_object()) return {};
  const auto* message = request.json->as_object().if_contains("message");
  return message != nullptr && message->is_string() ? std::string(message->as_string()) : "";
}

Result<std::int64_t> VersionParam(const Request& request) {
  const std::string_view text = request.PathParam("version");
  std::int64_t version = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc() || end != text.data() + text.size() || version < 1) {
    return Error::NotFound("schema version " + std::string(text) + " does not exist");
  }
  return version;
}

// --- Per-resource edits of the draft --------------------------------------------------------

boost::json::array& ArrayAt(boost::json::object& object, std::string_view key) {
  boost::json::value& value = object[key];
  if (!value.is_array()) value = boost::json::array();
  return value.as_array();
}

bool NameIs(const boost::json::value& item, std::string_view key, std::string_view name) {
  if (!item.is_object()) return false;
  const auto* value = item.as_object().if_contains(key);
  return value != nullptr && value->is_string() && value->as_string() == name;
}

boost::json::value* FindNamed(boost::json::array& items, std::string_view key,
                              std::string_view name) {
  for (auto& item : items) {
    if (NameIs(item, key, name)) return &item;
  }
  return nullptr;
}

Error NotInDraft(std::string_view what, std::string_view name) {
  return Error::NotFound(std::string(what) + " \"" + std::string(name) + "\" is not in the draft");
}

// RFC 7386 merge patch (null removes a member).
void MergePatch(boost::json::value& target, const boost::json::value& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = boost::json::object();
  for (const auto& member : patch.as_object()) {
    if (member.value().is_null()) {
      target.as_object().erase(member.key());
    } else {
      MergePatch(target.as_object()[member.key()], member.value());
    }
  }
}

// A named item of an array in the draft: a table, a field of a table, an auth strategy.
struct Collection {
  std::string path;  // under /api/admin/schema/draft/
  std::string what;  // `table`, `field`, `auth strategy`
  std::string key;   // the member that names an item
  // The array inside the draft (`tables`, `tables[name].fields`, `auth.strategies`).
  std::function<Result<boost::json::array*>(boost::json::object&, const Request&)> array;
  std::string item_param;  // the path parameter naming an item
  bool list = false;       // GET on `path` lists the items (a collection no key route reads)
};

Result<boost::json::array*> TablesOf(boost::json::object& draft, const Request&) {
  return &ArrayAt(draft, "tables");
}

Result<boost::json::array*> FieldsOf(boost::json::object& draft, const Request& request) {
  const std::string_view table = request.PathParam("table");
  boost::json::value* found = FindNamed(ArrayAt(draft, "tables"), "name", table);
  if (found == nullptr) return NotInDraft("table", table);
  return &ArrayAt(found->as_object(), "fields");
}

boost::json::object& AuthOf(boost::json::object& draft) {
  boost::json::value& auth = draft["auth"];
  if (!auth.is_object()) auth = boost::json::object();
  return auth.as_object();
}

Result<boost::json::array*> StrategiesOf(boost::json::object& draft, const Request&) {
  return &ArrayAt(AuthOf(draft), "strategies");
}

Result<boost::json::array*> RolesOf(boost::json::object& draft, const Request&) {
  return &ArrayAt(AuthOf(draft), "roles");
}

Result<boost::json::array*> BucketsOf(boost::json::object& draft, const Request&) {
  return &ArrayAt(draft, "buckets");
}

Response DraftResponse(const schema_edit::DraftView& view) {
  return Response::Json(200, DraftJson(view));
}

http::RouteSpec Spec(std::string method, std::string_view path, std::string summary,
                     const char* body_schema = nullptr) {
  http::RouteSpec spec;
  spec.method = std::move(method);
  spec.pattern = std::string(kPrefix) + std::string(path);
  spec.summary = std::move(summary);
  spec.tag = std::string(kTag);
  spec.requires_session = true;
  if (body_schema != nullptr) spec.body_schema = Schema(body_schema);
  spec.responses = {{200, "Success", {}},
                    {400, "Invalid input or an invalid config (errors name key paths)", {}},
                    {401, "No session", {}},
                    {403, "The caller is not an admin", {}}};
  return spec;
}

constexpr const char* kObjectBody = R"({"type":"object"})";
constexpr const char* kPutDraftBody = R"({"type":"object","required":["snapshot"],
  "additionalProperties":false,
  "properties":{"snapshot":{"type":"object","description":"the whole config document"},
  "baseVersion":{"type":"integer","minimum":1}}})";
constexpr const char* kMessageBody = R"({"type":"object","additionalProperties":false,
  "properties":{"message":{"type":"string","maxLength":2000}}})";
constexpr const char* kPruneBody = R"({"type":"object","required":["confirm"],
  "additionalProperties":false,"properties":{"confirm":{"type":"boolean"}}})";
constexpr const char* kAnyBody = R"({"description":"the new value of the key"})";
constexpr const char* kStringBody = R"({"type":"string","description":"the new value of the key"})";

Status AddCollectionRoutes(http::Router& router, SchemaEditor& editor, Collection collection) {
  const std::string item_path = collection.path + "/{" + collection.item_param + "}";
  auto shared = std::make_shared<Collection>(std::move(collection));
  CAIRN_TRY(router.Add(
      {Spec("POST", shared->path, "Add a " + shared->what + " to the draft", kObjectBody),
       [&editor, shared](Request& request) -> Result<Response> {
         CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
         const auto edit = [&](boost::json::object& draft) -> Status {
           CAIRN_ASSIGN_OR_RETURN(boost::json::array * items, shared->array(draft, request));
           const auto* name = request.json->as_object().if_contains(shared->key);
           if (name == nullptr || !name->is_string()) {
             return Error::Validation("The " + shared->what + " is invalid",
                                      {{shared->key, "is required and must be a string"}});
           }
           if (FindNamed(*items, shared->key, name->as_string()) != nullptr) {
             return Error::Conflict("The draft already has a " + shared->what + " \"" +
                                    std::string(name->as_string()) + "\"");
           }
           items->push_back(*request.json);
           return {};
         };
         CAIRN_ASSIGN_OR_RETURN(auto view, editor.EditDraft(edit, user));
         return DraftResponse(view);
       }}));
  if (shared->list) {
    CAIRN_TRY(router.Add({Spec("GET", shared->path, "List the " + shared->what + "s of the draft"),
                          [&editor, shared](Request& request) -> Result<Response> {
                            CAIRN_TRY(RequireAdmin(request));
                            CAIRN_ASSIGN_OR_RETURN(auto view, editor.GetDraft());
                            boost::json::object draft = view.draft.snapshot.as_object();
                            CAIRN_ASSIGN_OR_RETURN(boost::json::array * items,
                                                   shared->array(draft, request));
                            return Response::Json(200, {{"items", *items}});
                          }}));
  }
  CAIRN_TRY(router.Add({Spec("GET", item_path, "Get a " + shared->what + " of the draft"),
                        [&editor, shared](Request& request) -> Result<Response> {
                          CAIRN_TRY(RequireAdmin(request));
                          CAIRN_ASSIGN_OR_RETURN(auto view, editor.GetDraft());
                          boost::json::object draft = view.draft.snapshot.as_object();
                          CAIRN_ASSIGN_OR_RETURN(boost::json::array * items,
                                                 shared->array(draft, request));
                          const std::string_view name = request.PathParam(shared->item_param);
                          const boost::json::value* item = FindNamed(*items, shared->key, name);
                          if (item == nullptr) return NotInDraft(shared->what, name);
                          return Response::Json(200, *item);
                        }}));
  CAIRN_TRY(router.Add(
      {Spec("PATCH", item_path,
            "Change a " + shared->what + " of the draft (JSON merge patch; null removes a member)",
            kObjectBody),
       [&editor, shared](Request& request) -> Result<Response> {
         CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
         const auto edit = [&](boost::json::object& draft) -> Status {
           CAIRN_ASSIGN_OR_RETURN(boost::json::array * items, shared->array(draft, request));
           const std::string_view name = request.PathParam(shared->item_param);
           boost::json::value* item = FindNamed(*items, shared->key, name);
           if (item == nullptr) return NotInDraft(shared->what, name);
           MergePatch(*item, *request.json);
           return {};
         };
         CAIRN_ASSIGN_OR_RETURN(auto view, editor.EditDraft(edit, user));
         return DraftResponse(view);
       }}));
  return router.Add({Spec("DELETE", item_path, "Remove a " + shared->what + " from the draft"),
                     [&editor, shared](Request& request) -> Result<Response> {
                       CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
                       const auto edit = [&](boost::json::object& draft) -> Status {
                         CAIRN_ASSIGN_OR_RETURN(boost::json::array * items,
                                                shared->array(draft, request));
                         const std::string_view name = request.PathParam(shared->item_param);
                         for (auto it = items->begin(); it != items->end(); ++it) {
                           if (!NameIs(*it, shared->key, name)) continue;
                           items->erase(it);
                           return {};
                         }
                         return NotInDraft(shared->what, name);
                       };
                       CAIRN_ASSIGN_OR_RETURN(auto view, editor.EditDraft(edit, user));
                       return DraftResponse(view);
                     }});
}

// The other top-level keys: read, replace, merge-patch or remove one key of the draft. `auth`
// here is the whole section (allowSignUp, defaultRole, twoFactor, organizations, …); its
// strategies and roles also have collection routes.
constexpr std::string_view kDraftKeys[] = {"pages",      "theme",       "languages",
                                           "components", "analytics",   "auth",
                                           "forms",      "automations", "connections"};
// The scalar top-level keys: read, set (the body is the value), remove (`name` is required).
constexpr std::string_view kScalarKeys[] = {"name", "version", "description"};

// GET /draft/{key}: one top-level key of the draft, null when the draft has none.
Status AddGetKeyRoute(http::Router& router, SchemaEditor& editor, const std::string& key) {
  return router.Add(
      {Spec("GET", "/draft/" + key, "Get `" + key + "` of the draft"),
       [&editor, key](Request& request) -> Result<Response> {
         CAIRN_TRY(RequireAdmin(request));
         CAIRN_ASSIGN_OR_RETURN(auto view, editor.GetDraft());
         const auto* value = view.draft.snapshot.as_object().if_contains(key);
         return Response::Json(
             200, {{"key", key}, {"value", value != nullptr ? *value : boost::json::value()}});
       }});
}

Status AddScalarRoutes(http::Router& router, SchemaEditor& editor, std::string key) {
  const std::string path = "/draft/" + key;
  CAIRN_TRY(AddGetKeyRoute(router, editor, key));
  const auto set = [&editor, key](bool remove) {
    return [&editor, key, remove](Request& request) -> Result<Response> {
      CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
      CAIRN_ASSIGN_OR_RETURN(auto view, editor.EditDraft(
                                            [&](boost::json::object& draft) -> Status {
                                              if (remove) {
                                                draft.erase(key);
                                              } else {
                                                draft[key] = *request.json;
                                              }
                                              return {};
                                            },
                                            user));
      return DraftResponse(view);
    };
  };
  CAIRN_TRY(
      router.Add({Spec("POST", path, "Set `" + key + "` of the draft (the body is the new value)",
                       kStringBody),
                  set(false)}));
  if (key == "name") return {};
  return router.Add({Spec("DELETE", path, "Remove `" + key + "` from the draft"), set(true)});
}

Status AddKeyRoutes(http::Router& router, SchemaEditor& editor, std::string key) {
  const std::string path = "/draft/" + key;
  CAIRN_TRY(AddGetKeyRoute(router, editor, key));
  const auto edit = [&editor, key](bool merge) {
    return [&editor, key, merge](Request& request) -> Result<Response> {
      CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
      const auto edit = [&](boost::json::object& draft) -> Status {
        if (merge) {
          MergePatch(draft[key], *request.json);
        } else {
          draft[key] = *request.json;
        }
        return {};
      };
      CAIRN_ASSIGN_OR_RETURN(auto view, editor.EditDraft(edit, user));
      return DraftResponse(view);
    };
  };
  CAIRN_TRY(router.Add(
      {Spec("POST", path, "Set `" + key + "` of the draft (the body is the new value)", kAnyBody),
       edit(false)}));
  CAIRN_TRY(router.Add(
      {Spec("PATCH", path, "Change `" + key + "` of the draft (JSON merge patch)", kObjectBody),
       edit(true)}));
  return router.Add({Spec("DELETE", path, "Remove `" + key + "` from the draft"),
                     [&editor, key](Request& request) -> Result<Response> {
                       CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
                       const auto edit = [&](boost::json::object& draft) -> Status {
                         draft.erase(key);
                         return {};
                       };
                       CAIRN_ASSIGN_OR_RETURN(auto view, editor.EditDraft(edit, user));
                       return DraftResponse(view);
                     }});
}

}  // namespace

Status AddSchemaRoutes(http::Router& router, SchemaEditor& editor) {
  CAIRN_TRY(router.Add(
      {Spec("GET", "/status", "The active version, the draft's state and drift from the file"),
       [&editor](Request& request) -> Result<Response> {
         CAIRN_TRY(RequireAdmin(request));
         CAIRN_ASSIGN_OR_RETURN(auto status, editor.GetStatus());
         CAIRN_ASSIGN_OR_RETURN(auto deferred, editor.Deferred());
         boost::json::object out;
         out["activeVersion"] = status.active_version;
         out["draft"] = {{"exists", status.draft.exists},
                         {"stale", status.draft.stale},
                         {"dirty", status.draft.dirty}};
         out["drift"] = status.drift;
         out["deferred"] = DeferredJson(deferred);
         return Response::Json(200, out);
       }}));
  CAIRN_TRY(router.Add(
      {Spec("GET", "/diff", "The changes between the config file and the active version"),
       [&editor](Request& request) -> Result<Response> {
         CAIRN_TRY(RequireAdmin(request));
         CAIRN_ASSIGN_OR_RETURN(auto diff, editor.Diff());
         return Response::Json(200, diff);
       }}));
  http::RouteSpec export_spec = Spec("GET", "/export", "The active version as YAML");
  export_spec.responses.front().schema =
      boost::json::object{{"type", "string"}, {"contentMediaType", "text/yaml"}};
  CAIRN_TRY(router.Add({std::move(export_spec), [&editor](Request& request) -> Result<Response> {
                          CAIRN_TRY(RequireAdmin(request));
                          Response response;
                          response.content_type = "text/yaml; charset=utf-8";
                          response.body = schema_edit::ToYaml(editor.ActiveDocument());
                          return response;
                        }}));
  CAIRN_TRY(router.Add({Spec("GET", "/draft", "The working draft (the active version if none)"),
                        [&editor](Request& request) -> Result<Response> {
                          CAIRN_TRY(RequireAdmin(request));
                          CAIRN_ASSIGN_OR_RETURN(auto view, editor.GetDraft());
                          return DraftResponse(view);
                        }}));
  CAIRN_TRY(router.Add({Spec("PUT", "/draft", "Replace the working draft", kPutDraftBody),
                        [&editor](Request& request) -> Result<Response> {
                          CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
                          const boost::json::object& body = request.json->as_object();
                          std::optional<std::int64_t> base;
                          if (const auto* value = body.if_contains("baseVersion"))
                            base = value->to_number<std::int64_t>();
                          CAIRN_ASSIGN_OR_RETURN(auto view,
                                                 editor.PutDraft(body.at("snapshot"), base, user));
                          return DraftResponse(view);
                        }}));
  CAIRN_TRY(router.Add({Spec("POST", "/draft/discard", "Discard the working draft"),
                        [&editor](Request& request) -> Result<Response> {
                          CAIRN_TRY(RequireAdmin(request));
                          CAIRN_TRY(editor.DiscardDraft());
                          return Response::Json(200, {{"discarded", true}});
                        }}));
  CAIRN_TRY(router.Add(
      {Spec("POST", "/draft/validate", "Validate the draft as `cairn validate` would"),
       [&editor](Request& request) -> Result<Response> {
         CAIRN_TRY(RequireAdmin(request));
         CAIRN_ASSIGN_OR_RETURN(auto errors, editor.ValidateDraft());
         boost::json::array list;
         for (const auto& error : errors) {
           list.push_back({{"path", error.field}, {"message", error.message}});
         }
         return Response::Json(200, {{"valid", errors.empty()}, {"errors", std::move(list)}});
       }}));
  CAIRN_TRY(router.Add(
      {Spec("GET", "/draft/preview",
            "What publishing the draft would do: its problems, or the migration it would run"),
       [&editor](Request& request) -> Result<Response> {
         CAIRN_TRY(RequireAdmin(request));
         CAIRN_ASSIGN_OR_RETURN(auto preview, editor.PreviewDraft());
         boost::json::array errors;
         for (const auto& error : preview.errors) {
           errors.push_back({{"path", error.field}, {"message", error.message}});
         }
         boost::json::array planned;
         for (const auto& line : preview.migration.descriptions) planned.emplace_back(line);
         boost::json::array renames;
         for (const auto& rename : preview.renames) {
           renames.push_back({{"table", rename.table}, {"from", rename.from}, {"to", rename.to}});
         }
         boost::json::object out;
         out["valid"] = preview.errors.empty();
         out["errors"] = std::move(errors);
         out["migration"] = {{"planned", std::move(planned)},
                             {"deferred", DeferredJson(preview.migration.deferred)},
                             {"renames", std::move(renames)}};
         return Response::Json(200, out);
       }}));
  CAIRN_TRY(router.Add(
      {Spec("POST", "/draft/publish",
            "Publish the draft as a new version: migrate the live database and switch to it",
            kMessageBody),
       [&editor](Request& request) -> Result<Response> {
         CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
         CAIRN_ASSIGN_OR_RETURN(auto outcome, editor.PublishDraft(user, MessageOf(request)));
         return Response::Json(200, PublishJson(outcome));
       }}));
  CAIRN_TRY(router.Add({Spec("POST", "/draft/rebase", "Rebase a stale draft on the active version"),
                        [&editor](Request& request) -> Result<Response> {
                          CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
                          CAIRN_ASSIGN_OR_RETURN(auto view, editor.RebaseDraft(user));
                          return DraftResponse(view);
                        }}));
  CAIRN_TRY(router.Add(
      {Spec("GET", "/versions", "The published versions, newest first"),
       [&editor](Request& request) -> Result<Response> {
         CAIRN_TRY(RequireAdmin(request));
         CAIRN_ASSIGN_OR_RETURN(auto versions, editor.Versions());
         boost::json::array list;
         for (const auto& info : versions) list.push_back(VersionInfoJson(info));
         const std::int64_t active = versions.empty() ? 0 : versions[0].version;
         return Response::Json(200, {{"versions", std::move(list)}, {"activeVersion", active}});
       }}));
  auto version_spec = Spec("GET", "/versions/{version}", "A published version with its config");
  CAIRN_TRY(router.Add({std::move(version_spec), [&editor](Request& request) -> Result<Response> {
                          CAIRN_TRY(RequireAdmin(request));
                          CAIRN_ASSIGN_OR_RETURN(const std::int64_t number, VersionParam(request));
                          CAIRN_ASSIGN_OR_RETURN(auto version, editor.GetVersion(number));
                          boost::json::object out = VersionInfoJson(version.info);
                          out["snapshot"] = std::move(version.snapshot);
                          return Response::Json(200, out);
                        }}));
  CAIRN_TRY(router.Add(
      {Spec("POST", "/versions/{version}/restore",
            "Publish an earlier version's config again as a new version", kMessageBody),
       [&editor](Request& request) -> Result<Response> {
         CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
         CAIRN_ASSIGN_OR_RETURN(const std::int64_t number, VersionParam(request));
         CAIRN_ASSIGN_OR_RETURN(auto outcome, editor.Restore(number, user, MessageOf(request)));
         boost::json::object out = PublishJson(outcome);
         out["restoredFromVersion"] = number;
         return Response::Json(200, out);
       }}));
  CAIRN_TRY(router.Add(
      {Spec("POST", "/prune",
            "Drop the columns and tables that publishes removed from the schema (deletes their "
            "data)",
            kPruneBody),
       [&editor](Request& request) -> Result<Response> {
         CAIRN_ASSIGN_OR_RETURN(const std::string user, AdminId(request));
         if (!request.json->as_object().at("confirm").as_bool()) {
           return Error::Validation("Prune deletes data: send {\"confirm\": true}",
                                    {{"confirm", "must be true"}});
         }
         CAIRN_ASSIGN_OR_RETURN(auto report, editor.Prune(user));
         boost::json::array applied;
         for (const auto& line : report.descriptions) applied.emplace_back(line);
         return Response::Json(
             200, {{"pruned", DeferredJson(report.deferred)}, {"applied", std::move(applied)}});
       }}));
  CAIRN_TRY(
      AddCollectionRoutes(router, editor, {"/draft/tables", "table", "name", &TablesOf, "table"}));
  CAIRN_TRY(AddCollectionRoutes(
      router, editor, {"/draft/tables/{table}/fields", "field", "name", &FieldsOf, "field"}));
  CAIRN_TRY(AddCollectionRoutes(
      router, editor,
      {"/draft/auth/strategies", "auth strategy", "type", &StrategiesOf, "strategy", true}));
  CAIRN_TRY(AddCollectionRoutes(
      router, editor, {"/draft/auth/roles", "auth role", "name", &RolesOf, "role", true}));
  CAIRN_TRY(AddCollectionRoutes(router, editor,
                                {"/draft/buckets", "bucket", "name", &BucketsOf, "bucket", true}));
  for (const std::string_view key : kDraftKeys) {
    CAIRN_TRY(AddKeyRoutes(router, editor, std::string(key)));
  }
  for (const std::string_view key : kScalarKeys) {
    CAIRN_TRY(AddScalarRoutes(router, editor, std::string(key)));
  }
  return {};
}

}  // namespace cairn::api
