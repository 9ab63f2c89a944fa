// The kept active list: when it is current, what each caller sees of it,
// and how much of it a thread keeps.
#include "../../handlers/announcements/active_list.h"

#include <gtest/gtest.h>

namespace ca {
namespace {

ActiveList list_of(std::initializer_list<int64_t> ids) {
  ActiveList list;
  for (int64_t id : ids) list.add(id, R"({"id":)" + std::to_string(id) + "}");
  return list;
}

TEST(ActiveList, IdsParamIsAPostgresArrayInDisplayOrder) {
  ActiveList list;
  EXPECT_EQ(list.ids_param, "{}");
  list.add(30, "{}");
  EXPECT_EQ(list.ids_param, "{30}");
  list.add(4, "{}");
  list.add(1000000000001, "{}");
  EXPECT_EQ(list.ids_param, "{30,4,1000000000001}");
  EXPECT_EQ(list.ids, (std::vector<int64_t>{30, 4, 1000000000001}));
}

TEST(ActiveList, CurrentOnlyAtItsVersionAndBetweenItsBoundaries) {
  ActiveList list = list_of({1});
  list.version = 7;
  list.valid_from_us = 1000;
  list.valid_until_us = 2000;
  EXPECT_TRUE(list.current(7, 1000));
  EXPECT_TRUE(list.current(7, 1999));
  // At the boundary a row is live (scheduled_at <= now) or gone (expires_at <= now).
  EXPECT_FALSE(list.current(7, 2000));
  // A clock before the list was read: a row that had expired by then may still be live.
  EXPECT_FALSE(list.current(7, 999));
  EXPECT_FALSE(list.current(8, 1500));
  EXPECT_FALSE(list.current(6, 1500));

  ActiveList open_ended;  // no boundary ahead
  EXPECT_TRUE(open_ended.current(0, std::numeric_limits<int64_t>::max() - 1));
}

std::string active_item_json(std::string_view stored, bool is_read, bool is_dismissed) {
  std::string out = "[";
  append_active_item(out, stored, is_read, is_dismissed);
  return out.substr(1);
}

TEST(ActiveList, ItemCarriesTheCallersReadState) {
  EXPECT_EQ(active_item_json(R"({"id":1,"title":"}"})", false, false),
            R"({"id":1,"title":"}","is_read":false,"is_dismissed":false})");
  EXPECT_EQ(active_item_json(R"({"id":1})", true, false),
            R"({"id":1,"is_read":true,"is_dismissed":false})");
  EXPECT_EQ(active_item_json(R"({"id":1})", true, true),
            R"({"id":1,"is_read":true,"is_dismissed":true})");
}

TEST(ActiveList, EachCallerSeesItsReadsAndNotItsDismissals) {
  ActiveList list = list_of({5, 3, 9, 1});
  EXPECT_EQ(active_array_for(list, {}), R"([{"id":5,"is_read":false,"is_dismissed":false},)"
                                        R"({"id":3,"is_read":false,"is_dismissed":false},)"
                                        R"({"id":9,"is_read":false,"is_dismissed":false},)"
                                        R"({"id":1,"is_read":false,"is_dismissed":false}])");
  // Reads in any order, one for an announcement the list does not hold;
  // the first item dismissed.
  EXPECT_EQ(active_array_for(list, {{9, false}, {42, false}, {5, true}, {1, false}}),
            R"([{"id":3,"is_read":false,"is_dismissed":false},)"
            R"({"id":9,"is_read":true,"is_dismissed":false},)"
            R"({"id":1,"is_read":true,"is_dismissed":false}])");
  EXPECT_EQ(active_array_for(list, {{5, true}, {3, true}, {9, true}, {1, true}}), "[]");
  EXPECT_EQ(active_array_for(ActiveList{}, {{5, false}}), "[]");
}

TEST(ReaderState, CurrentOnlyForItsListAndReadVersions) {
  ReaderState state;
  state.list_version = 4;
  state.reads_version = 9;
  EXPECT_TRUE(state.current(4, 9));
  EXPECT_FALSE(state.current(5, 9));
  EXPECT_FALSE(state.current(4, 10));
}

std::shared_ptr<const ActiveList> sized(int64_t version, size_t item_bytes) {
  auto list = std::make_shared<ActiveList>();
  list->version = version;
  list->add(1, std::string(item_bytes, 'x'));
  return list;
}

TEST(ActiveListCache, KeepsTheLatestListPerTenant) {
  ActiveListCache cache(1 << 20);
  EXPECT_EQ(cache.find(1), nullptr);
  cache.store(1, sized(1, 100));
  cache.store(2, sized(5, 100));
  cache.store(1, sized(2, 100));
  ASSERT_NE(cache.find(1), nullptr);
  EXPECT_EQ(cache.find(1)->version, 2);
  EXPECT_EQ(cache.find(2)->version, 5);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.bytes(), cache.find(1)->bytes() + cache.find(2)->bytes());
}

TEST(ActiveListCache, DropsTheLeastRecentlyUsedPastItsSize) {
  const size_t each = sized(1, 1000)->bytes();
  ActiveListCache cache(each * 4);
  for (int64_t tenant = 1; tenant <= 4; ++tenant) cache.store(tenant, sized(1, 1000));
  ASSERT_NE(cache.find(1), nullptr);  // 2 is now the least recently used
  cache.store(5, sized(1, 1000));
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(cache.find(2), nullptr);
  for (int64_t tenant : {1, 3, 4, 5}) EXPECT_NE(cache.find(tenant), nullptr) << tenant;
  EXPECT_LE(cache.bytes(), each * 4);
}

TEST(ActiveListCache, KeepsReaderStatesByTenantAndUser) {
  ReaderStateCache cache(1 << 16);
  auto state = [](int64_t reads_version) {
    auto s = std::make_shared<ReaderState>();
    s->reads_version = reads_version;
    return s;
  };
  cache.store({1, 2}, state(1));
  cache.store({2, 1}, state(2));
  ASSERT_NE(cache.find({1, 2}), nullptr);
  EXPECT_EQ(cache.find({1, 2})->reads_version, 1);
  EXPECT_EQ(cache.find({2, 1})->reads_version, 2);
  EXPECT_EQ(cache.find({1, 1}), nullptr);
}

TEST(ActiveListCache, DoesNotKeepAListOfMoreThanAQuarterOfItsSize) {
  ActiveListCache cache(40000);
  cache.store(1, sized(1, 1000));
  cache.store(1, sized(2, 20000));  // the old one goes too: it is not the list any more
  EXPECT_EQ(cache.find(1), nullptr);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
}

}  // namespace
}  // namespace ca
