// What records keep of people and of the trash after the fact (D19a): an erased account's
// authorship stamps, and records past the retention horizon.
#pragma once

#include <string_view>

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"

namespace cairn::records {

// Nulls created_by, updated_by and deleted_by wherever they name `user_id`, in every table of
// `config`: the records stay, without their author (the account is being erased). Runs inside
// the erasure's transaction (auth::AuthOptions::on_account_erased); updated_at does not move,
// since nobody changed the record.
Status ForgetRecordAuthor(db::Connection& connection, const config::AppConfig& config,
                          std::string_view user_id);

}  // namespace cairn::records
