// client_gone (common/http.h): a closed FastCGI connection is seen as gone,
// an open one (with or without unread input) is not.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http.h"

namespace ca {
namespace {

class ClientGoneTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    for (int fd : fds_) {
      if (fd >= 0) close(fd);
    }
  }
  Request request() const {
    Request req;
    req.connection_fd = fds_[0];
    return req;
  }
  int fds_[2] = {-1, -1};
};

TEST_F(ClientGoneTest, OpenConnectionIsNotGone) { EXPECT_FALSE(client_gone(request())); }

TEST_F(ClientGoneTest, UnreadInputIsNotAClose) {
  ASSERT_EQ(write(fds_[1], "x", 1), 1);
  EXPECT_FALSE(client_gone(request()));
}

TEST_F(ClientGoneTest, PeerCloseIsGone) {
  close(fds_[1]);
  fds_[1] = -1;
  EXPECT_TRUE(client_gone(request()));
}

TEST_F(ClientGoneTest, PeerCloseWithUnreadInputIsGone) {
  ASSERT_EQ(write(fds_[1], "x", 1), 1);
  close(fds_[1]);
  fds_[1] = -1;
  EXPECT_TRUE(client_gone(request()));
}

TEST_F(ClientGoneTest, PeerShutdownOfItsWritingSideIsGone) {
  ASSERT_EQ(shutdown(fds_[1], SHUT_WR), 0);
  EXPECT_TRUE(client_gone(request()));
}

TEST(ClientGone, NoConnectionIsNotGone) { EXPECT_FALSE(client_gone(Request{})); }

}  // namespace
}  // namespace ca
