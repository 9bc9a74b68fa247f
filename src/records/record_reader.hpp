// The SELECT list of a table's records and the JSON of one row in the D30 shape:
// {id:"7", fields:{…}, createdBy, createdAt, updatedBy, updatedAt, deletedBy, deletedAt}.
// The column order is fixed: the seven system columns, then each stored field in config order,
// then the relationships without a column of their own (many-to-many from its junction table,
// one-to-many from the related table's foreign key), each a JSON array of live related ids.
// With file storage configured, the record answers embed each attachment's links (D45); the
// history form (AppendAllFields) keeps the stored values.
#pragma once

#include <string>
#include <vector>

#include "config/model.hpp"
#include "db/dialect.hpp"
#include "db/row.hpp"
#include "records/attachment_files.hpp"
#include "records/display_context.hpp"

namespace cairn::records {

class RecordReader {
 public:
  // `files` (null: no file storage) must outlive the reader.
  RecordReader(const config::AppConfig& config, const config::Table& table,
               const db::Dialect& dialect, const AttachmentFiles* files = nullptr);

  // A many-to-many field and its junction table (`"source_id"`, `"target_id"`).
  struct LinkField {
    const config::Field* field;
    std::string junction_sql;  // quoted
  };
  const LinkField* LinkOf(const config::Field& field) const;

  // `"id", "created_at", …, "<field>", …` (qualified by nothing; one table per statement).
  const std::string& columns_sql() const { return columns_sql_; }
  const std::string& table_sql() const { return table_sql_; }
  // `SELECT <columns> FROM <table> WHERE "id" = ?`, and the same limited to live records.
  const std::string& select_by_id_sql() const { return select_by_id_sql_; }
  const std::string& select_live_by_id_sql() const { return select_live_by_id_sql_; }

  // The record JSON with the fields `readable` allows (null: every field); field values in their
  // display form when `display` is given (D39), else raw.
  void AppendRecord(const db::Row& row, const std::vector<const config::Field*>* readable,
                    std::string& out, DisplayContext* display = nullptr) const;
  // The upsert's flat shape (D33): {"id":7, <readable field>: value, …}.
  void AppendFlat(const db::Row& row, const std::vector<const config::Field*>& readable,
                  std::string& out) const;
  // Only the `fields` object, every stored field as stored (history and activity keep these).
  void AppendAllFields(const db::Row& row, std::string& out) const;

  static constexpr int kIdColumn = 0;
  static constexpr int kUpdatedAtColumn = 2;
  static constexpr int kDeletedAtColumn = 5;

 private:
  struct StoredField {
    const config::Field* field;
    int column;
    bool in_history;  // one-to-many changes with the other table, so history leaves it out
  };
  // `files`: the links to add (null: none).
  void AppendField(const StoredField& stored, const db::Row& row, std::string& out,
                   const AttachmentFiles* files, DisplayContext* display = nullptr) const;

  const AttachmentFiles* files_;
  std::string table_sql_;
  std::string columns_sql_;
  std::string select_by_id_sql_;
  std::string select_live_by_id_sql_;
  std::vector<StoredField> stored_;
  std::vector<LinkField> links_;
};

}  // namespace cairn::records
