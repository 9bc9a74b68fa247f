// The Tables API: the config's tables as the caller may see them (D7, D20, D21). Every route
// needs a session (D17), so it is registered only when the config has `auth`.
//
//   GET /api/tables                        → {tables:[Table…]}, the tables the caller may read
//   GET /api/tables/{tableId}              → Table
//   GET /api/tables/{tableId}/permissions  → {table:{id,name,slug}, permissions, caller}
//
// {tableId} is the id, the name (any case) or the slug. A table that does not exist and one the
// caller may not read both answer 404 NOT_FOUND "Table not found".
//
// Table: {id, name, slug, fields:[Field…], views:[{id,name}], permissions}
// Field: {id, name, type, required, unique, indexed, default?, …the type's properties as
//         configured}
// permissions: {read, create, update, delete, restore, permanentDelete, comment: the rule in
//         force — as configured, else the D20 default — each "all", "authenticated" or a list
//         of roles; fields:[{field, read, write}] the configured field rules, an absent side
//         shown as "all"}
// caller: {role, read, create, update, delete, restore, permanentDelete, comment: booleans;
//         fields:{<name>:{read:true, write}}} — what this caller may do (write is the permission;
//         server-controlled types such as created-by are read-only regardless)
//
// Fields the caller may not read appear nowhere: not in `fields`, not in the field rules, not
// under `caller.fields` (D21).
#pragma once

#include "access/access_index.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "http/router.hpp"

namespace cairn::api {

// `config` and `access` (built from it) must outlive the router.
Status AddTablesRoutes(http::Router& router, const config::AppConfig& config,
                       const access::AccessIndex& access);

}  // namespace cairn::api
