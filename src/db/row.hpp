// A read-only view of the current result row; valid only inside the row callback.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "db/value.hpp"

namespace cairn::db {

class Row {
 public:
  virtual ~Row() = default;
  virtual int ColumnCount() const = 0;
  virtual std::string_view ColumnName(int column) const = 0;
  virtual bool IsNull(int column) const = 0;
  virtual std::int64_t GetInt64(int column) const = 0;
  virtual double GetDouble(int column) const = 0;
  virtual bool GetBool(int column) const = 0;
  // Text of the column; the view is valid until the callback returns.
  virtual std::string_view GetText(int column) const = 0;
  virtual std::string GetBlob(int column) const = 0;
  virtual std::int64_t GetTimestampMillis(int column) const = 0;
  virtual Decimal GetDecimal(int column, int scale) const = 0;
};

}  // namespace cairn::db
