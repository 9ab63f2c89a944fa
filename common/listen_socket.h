// The handler's listening FastCGI socket: the one it inherited (on fd 0 from
// spawn-fcgi or systemd's StandardInput=socket, or as systemd's LISTEN_FDS
// on fd 3) or one it makes at --socket PATH. Inherited, it may be a unix or
// a TCP socket (spawn-fcgi -a/-p, a socket unit's ListenStream=host:port).
//
// Called once at start-up, from the main thread.
#pragma once

namespace ca {

// Returns the listening socket's fd, or -1 after one line on stderr with
// *exit_code set (1: cannot listen, 2: started wrong). A socket made at
// `socket_path` (non-null) replaces any file there and is made connectable
// by every user (nginx workers run as another one).
int take_listen_socket(const char* program, const char* socket_path, int* exit_code);

// Whether `fd` is a TCP socket (IPv4 or IPv6), whose connections want
// TCP_NODELAY (see Dispatcher).
bool listen_socket_is_tcp(int fd);

// Removes the socket file made by take_listen_socket (nothing for an
// inherited socket).
void remove_listen_socket(const char* socket_path);

}  // namespace ca
