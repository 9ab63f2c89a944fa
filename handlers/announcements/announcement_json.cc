#include "announcement_json.h"

#include "json_rendered.h"

namespace ca {

Json announcement_json(const Rows& rows, int row) { return json_rendered(rows, row); }

}  // namespace ca
