// commerce-admin-products: list, create, read, update, soft delete.
#include "products.h"
#include "serve.h"

int main(int argc, char** argv) {
  return ca::serve_main(
      argc, argv, "commerce-admin-products",
      {
          {"GET", "/api/v2/admin/products", ca::products_list, ca::Scope::kProductsRead},
          {"POST", "/api/v2/admin/products", ca::products_create, ca::Scope::kProductsWrite,
           ca::kIdempotent},
          {"GET", "/api/v2/admin/products/{id}", ca::products_read, ca::Scope::kProductsRead},
          {"POST", "/api/v2/admin/products/{id}", ca::products_update, ca::Scope::kProductsWrite},
          {"DELETE", "/api/v2/admin/products/{id}", ca::products_delete, ca::Scope::kProductsWrite},
      });
}
