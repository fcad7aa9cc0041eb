/* The names of MenuBus's D-Bus contract the shims use, in one place: every
 * shim (the GTK 3 module, the GTK 4 library, the Qt theme) includes this
 * header, and ShimNamesTests holds each name to dbus/ and to the
 * service's own list of errors. */
#ifndef MENUBUS_NAMES_H
#define MENUBUS_NAMES_H

#define MB_BUS_NAME "org.menubus.MenuBus1"
#define MB_MANAGER_PATH "/org/menubus/MenuBus1"
#define MB_MANAGER_IFACE "org.menubus.MenuBus1"
#define MB_MENU_IFACE "org.menubus.MenuBus1.Menu"
#define MB_CLIENT_IFACE "org.menubus.MenuBus1.Client"

/* Where a shim serves the Client interface. Not the usual
 * /org/menubus/Client: the shim shares the process's session connection,
 * where an app of its own may serve that path. */
#define MB_SHIM_CLIENT_PATH "/org/menubus/Shim"

#define MB_ERROR_PREFIX "org.menubus.MenuBus1.Error."
#define MB_ERROR_ACCESS_DENIED MB_ERROR_PREFIX "AccessDenied"
#define MB_ERROR_LIMIT_EXCEEDED MB_ERROR_PREFIX "LimitExceeded"
#define MB_ERROR_NO_SUCH_CONTEXT MB_ERROR_PREFIX "NoSuchContext"
#define MB_ERROR_NO_SUCH_ITEM MB_ERROR_PREFIX "NoSuchItem"
#define MB_ERROR_NOT_REGISTERED MB_ERROR_PREFIX "NotRegistered"
#define MB_ERROR_NOTHING_TO_SHOW MB_ERROR_PREFIX "NothingToShow"

/* The contract's bounds on what menubusd sends (docs/API.md): a menu of
 * more, or a longer string, is not menubusd's and is not shown. */
#define MB_MAX_ELEMENTS 1000
#define MB_MAX_STRING_BYTES 4096
/* A selection's text and GetSelectedText's answer. */
#define MB_MAX_TEXT_BYTES 65536

#endif
