/* The shim core's own tests: the core (shims/core), linked with a fake
 * widget, against a fake menubusd on a private bus (GTestDBus), no app
 * and no toolkit. `core-test -l` lists the cases, `core-test -p PATH`
 * runs one; Tests/MenuBusTests/ShimCoreTests.swift runs each, here and
 * in the AddressSanitizer build (core-test-asan). */
#include "test-support.h"

#include <glib/gstdio.h>

/* The user's and the system's config folders, with menubus/integration.conf
 * excluding CORE_TEST_EXCLUDED_NAME and turning the edit bar on for
 * CORE_TEST_NAME: nothing of this machine's is read. */
static gchar *
isolate_config (void)
{
    g_autoptr (GError) error = NULL;
    gchar *root = g_dir_make_tmp ("menubus-core-test-XXXXXX", &error);
    g_assert_no_error (error);
    g_autofree gchar *user = g_build_filename (root, "config", NULL);
    g_autofree gchar *folder = g_build_filename (user, "menubus", NULL);
    g_autofree gchar *system = g_build_filename (root, "system", NULL);
    g_autofree gchar *file = g_build_filename (folder, "integration.conf", NULL);
    g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
    g_assert_cmpint (g_mkdir_with_parents (system, 0700), ==, 0);
    /* The edit bar on for this program alone (its Apps=). */
    g_file_set_contents (file,
                         "[Exclude]\nApps=some-other-program;" CORE_TEST_EXCLUDED_NAME ";\n"
                         "[Edit Bar]\nEnabled=false\nApps=" CORE_TEST_NAME ";\n",
                         -1, &error);
    g_assert_no_error (error);
    g_setenv ("XDG_CONFIG_HOME", user, TRUE);
    g_setenv ("XDG_CONFIG_DIRS", system, TRUE);
    return root;
}

static void
remove_config (gchar *root)
{
    const gchar *paths[] = { "config/menubus/integration.conf", "config/menubus", "config", "system", "" };
    for (guint i = 0; i < G_N_ELEMENTS (paths); i++) {
        g_autofree gchar *path = g_build_filename (root, paths[i], NULL);
        g_remove (path);
    }
    g_free (root);
}

/* Kept to the end: see main. */
static GTestDBus *bus;

int
main (int argc, char **argv)
{
    gboolean listing = FALSE;
    for (int i = 1; i < argc; i++)
        listing |= g_strcmp0 (argv[i], "-l") == 0;
    g_unsetenv ("MENUBUS_DISABLE");
    g_test_init (&argc, &argv, NULL);
    g_set_prgname (CORE_TEST_NAME);
    gchar *root = NULL;
    /* A subprocess (g_test_trap_subprocess) runs on its parent's bus; a
     * list of the cases needs none. */
    if (!g_test_subprocess () && !listing) {
        root = isolate_config ();
        bus = g_test_dbus_new (G_TEST_DBUS_NONE);
        g_test_dbus_up (bus);
    }
    add_menu_tests ();
    add_live_tests ();
    add_hostile_tests ();
    add_field_tests ();
    add_daemon_tests ();
    add_identity_tests ();
    add_undo_tests ();
    add_shortcut_tests ();
    add_bar_tests ();
    int status = g_test_run ();
    if (bus) {
        /* The core keeps its connection for the process's life: the bus
         * going must not end the process before it reports. Not
         * g_test_dbus_down (nor the last unref, which runs it): it waits
         * for that connection to go. */
        if (mb_shim_connection ())
            g_dbus_connection_set_exit_on_close (mb_shim_connection (), FALSE);
        g_test_dbus_stop (bus);
        remove_config (root);
    }
    return status;
}
