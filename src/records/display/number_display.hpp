// Numbers in their display form (D39), through ICU's number formatter: grouping, fixed decimal
// places, currency symbols and percent signs. Decimals are formatted from their exact decimal
// text, never through a double. Each appends a JSON string.
#pragma once

#include <cstdint>
#include <string>

#include <boost/json/object.hpp>

#include "config/model.hpp"
#include "db/value.hpp"
#include "records/display_context.hpp"

namespace cairn::records::display {

// `1,234`
void AppendInteger(DisplayContext& context, const config::Field& field, std::int64_t value,
                   std::string& out);
// decimal `1,234.50`; currency `$1,234.50`, `(€1.234,50)`, `1 234.50 CHF`; percentage `12.5%`.
void AppendDecimalNumber(DisplayContext& context, const config::Field& field, db::Decimal value,
                         std::string& out);
// The JSON Schema of what AppendInteger or AppendDecimalNumber writes for `field`: a string whose
// pattern is derived from this formatter's own output (symbol, sign, separators, places), with
// that output as its example. `may_be_negative` false leaves the negative form out.
boost::json::object NumberDisplaySchema(const config::Field& field, bool may_be_negative = true);
// A byte count in the largest unit that keeps it at or above 1: `512 byte`, `1.2 MB`.
void AppendByteSize(std::int64_t bytes, std::string& out);

}  // namespace cairn::records::display
