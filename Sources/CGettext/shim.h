// glibc's gettext: dgettext, bindtextdomain, bind_textdomain_codeset.
// Part of libc, so nothing to link.  Only Sources/MenuBusModel/Localization/
// imports this module.
#include <libintl.h>
#include <locale.h>
