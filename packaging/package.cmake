# The Debian package (CA_PACKAGE=ON; scripts/package builds it): everything
# `cmake --install` puts in place, plus the systemd units (ExecStart pointed at
# this prefix), the nginx template with its renderer and a rendered default,
# an example /etc/commerce-admin/env (a conffile) and the maintainer scripts.

set(CA_PACKAGE_VERSION "${PROJECT_VERSION}" CACHE STRING "Debian package version")
set(CA_GIT_COMMIT "unknown" CACHE STRING "The commit the package is built from")

# Units: the repo's files name /usr/local/bin (a source install); the package's binaries live in
# ${CMAKE_INSTALL_PREFIX}/bin.
file(GLOB ca_units "${PROJECT_SOURCE_DIR}/systemd/*.service" "${PROJECT_SOURCE_DIR}/systemd/*.socket"
     "${PROJECT_SOURCE_DIR}/systemd/*.timer" "${PROJECT_SOURCE_DIR}/systemd/*.target")
foreach(unit ${ca_units})
  get_filename_component(name "${unit}" NAME)
  file(READ "${unit}" text)
  string(REPLACE "/usr/local/bin/" "${CMAKE_INSTALL_PREFIX}/bin/" text "${text}")
  file(WRITE "${CMAKE_BINARY_DIR}/package/systemd/${name}" "${text}")
endforeach()
# Debian 12 (no merged-/usr paths in packages yet): units belong in /lib/systemd/system.
install(DIRECTORY "${CMAKE_BINARY_DIR}/package/systemd/" DESTINATION /lib/systemd/system)

# nginx: the template and its renderer (run it with the site's settings), and the
# default rendering (sockets in /run/commerce-admin, listening on 127.0.0.1:3000).
install(FILES nginx/commerce-admin.conf.in nginx/dev-nginx.conf.in
        DESTINATION share/commerce-admin/nginx)
install(PROGRAMS scripts/render-nginx DESTINATION share/commerce-admin/scripts)
# The two database roles, for the operator to run as the PostgreSQL superuser
# (docs/howto/install.md, step 1).
install(FILES scripts/db-roles.sql DESTINATION share/commerce-admin)
execute_process(
  COMMAND "${PROJECT_SOURCE_DIR}/scripts/render-nginx"
  OUTPUT_FILE "${CMAKE_BINARY_DIR}/package/commerce-admin.conf"
  RESULT_VARIABLE rendered)
if(NOT rendered EQUAL 0)
  message(FATAL_ERROR "scripts/render-nginx failed")
endif()
install(FILES "${CMAKE_BINARY_DIR}/package/commerce-admin.conf"
        DESTINATION share/commerce-admin/nginx)

# Private from the first byte on disk: the .deb itself carries the env file
# 0640 (and its directory 0750), so it is never world-readable, not even
# between dpkg's unpack and postinst (which then makes them
# root:commerce-admin). CPack keeps the modes of the staged files.
install(DIRECTORY DESTINATION /etc/commerce-admin
        DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
install(FILES packaging/env DESTINATION /etc/commerce-admin
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ)

# Debian policy: copyright and a compressed changelog in /usr/share/doc/<package>.
string(TIMESTAMP CA_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(packaging/changelog.in "${CMAKE_BINARY_DIR}/package/changelog" @ONLY)
foreach(doc changelog)
  execute_process(COMMAND gzip -9nf "${CMAKE_BINARY_DIR}/package/${doc}")
endforeach()
execute_process(COMMAND gzip -9nc "${PROJECT_SOURCE_DIR}/README.md"
                OUTPUT_FILE "${CMAKE_BINARY_DIR}/package/README.md.gz")
install(FILES packaging/copyright "${CMAKE_BINARY_DIR}/package/changelog.gz"
              "${CMAKE_BINARY_DIR}/package/README.md.gz"
        DESTINATION share/doc/commerce-admin)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME commerce-admin)
set(CPACK_PACKAGE_VERSION "${CA_PACKAGE_VERSION}")
set(CPACK_PACKAGE_CONTACT "commerce-admin developers <dev@commerce-admin.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "administration API of a multi-tenant e-commerce platform")
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
       "FastCGI handlers (one per resource group) for nginx, a webhook, push and\n"
       "publishing worker, the commerce-admin operator CLI and the PostgreSQL\n"
       "migrations, with systemd socket, service and timer units.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies by their real package names (libfcgi0ldbl, libpq5, ...), from dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "nginx")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "postgresql (>= 15)")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${PROJECT_SOURCE_DIR}/packaging/conffiles" "${PROJECT_SOURCE_DIR}/packaging/postinst"
    "${PROJECT_SOURCE_DIR}/packaging/prerm" "${PROJECT_SOURCE_DIR}/packaging/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_FILE_NAME_SUFFIX "")
include(CPack)
