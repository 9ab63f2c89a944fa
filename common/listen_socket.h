// The handler's listening FastCGI socket: the one it inherited on fd 0
// (spawn-fcgi, systemd StandardInput=socket) or one it makes at --socket PATH.
//
// Called once at start-up, from the main thread.
#pragma once

namespace ca {

// Returns the listening socket's fd, or -1 after one line on stderr with
// *exit_code set (1: cannot listen, 2: started wrong). A socket made at
// `socket_path` (non-null) replaces any file there and is made connectable
// by every user (nginx workers run as another one).
int take_listen_socket(const char* program, const char* socket_path, int* exit_code);

// Removes the socket file made by take_listen_socket (nothing for fd 0).
void remove_listen_socket(const char* socket_path);

}  // namespace ca
