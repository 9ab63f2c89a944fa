// commerce-admin-categories: list, create, update, delete, publish toggle.
#include "categories.h"
#include "serve.h"

int main(int argc, char** argv) {
  return ca::serve_main(argc, argv, "commerce-admin-categories",
                        {
                            {"GET", "/api/v2/admin/category", ca::categories_list,
                             ca::Scope::kCategoriesRead, ca::kCategoryStyle},
                            {"POST", "/api/v2/admin/category/create", ca::categories_create,
                             ca::Scope::kCategoriesWrite, ca::kIdempotent, ca::kCategoryStyle},
                            {"PATCH", "/api/v2/admin/category/{id}", ca::categories_toggle,
                             ca::Scope::kCategoriesWrite, ca::kCategoryStyle},
                            {"POST", "/api/v2/admin/category/{id}", ca::categories_update,
                             ca::Scope::kCategoriesWrite, ca::kCategoryStyle},
                            {"DELETE", "/api/v2/admin/category/{id}", ca::categories_delete,
                             ca::Scope::kCategoriesWrite, ca::kCategoryStyle},
                        });
}
