// Admin schema management (D51): /api/admin/schema/… — status, diff, export, the draft and its
// per-resource edits, validate, publish, rebase, versions, restore and prune. Registered only
// with auth and SCHEMA_EDIT_API_ENABLED (application.cpp); admin only (403), session required
// (401). The work is schema_edit::SchemaEditor's.
#pragma once

#include "common/result.hpp"
#include "http/router.hpp"
#include "schema_edit/schema_editor.hpp"

namespace cairn::api {

Status AddSchemaRoutes(http::Router& router, schema_edit::SchemaEditor& editor);

}  // namespace cairn::api
