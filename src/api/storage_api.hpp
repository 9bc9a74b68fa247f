// /api/buckets…: signing (D42, D43), file download, upload and delete (D44, D47) and the lists
// of buckets and files, over storage::StorageService. Signing, lists and delete need a session;
// file GET, HEAD and PUT are authenticated by their token alone (or by the file being public).
#pragma once

#include <cstdint>
#include <functional>

#include "common/result.hpp"
#include "db/database.hpp"
#include "http/router.hpp"
#include "storage/storage_service.hpp"
#include "transform/transform_service.hpp"

namespace cairn::api {

// `database` takes the activity entries of uploads and deletes; `now_seconds` is the clock that
// dates and checks tokens (tests step it). `transforms` serves image transforms of file GETs
// (null: transform parameters are ignored and the original is served). All of them must
// outlive the router.
Status AddStorageRoutes(http::Router& router, storage::StorageService& storage,
                        db::Database& database, std::function<std::int64_t()> now_seconds,
                        transform::TransformService* transforms = nullptr);

}  // namespace cairn::api
