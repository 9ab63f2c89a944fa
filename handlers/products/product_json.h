// The Product record. PostgreSQL renders its JSON when the row is written
// (products.api_json, ca_product_json in sql/016_rendered_json.sql); every
// product statement returns it as the column `json` and the handlers print
// it as it is (common/json_rendered.h).
#pragma once

#define CA_PRODUCT_JSON "p.api_json AS json"
