/* MenuBus in unmodified Qt Widgets apps: a platform-theme plugin (key
 * `menubus`, QT_QPA_PLATFORMTHEME=menubus) that wraps the theme the app
 * would have had and forwards every QPlatformTheme call to it, and starts
 * the bridge (menubus-qt-bridge.cpp) once the application runs.
 *
 * The wrapped theme: the names in MENUBUS_QT_WRAPPED_THEME (colon
 * separated) first, then the ones Qt itself would try for this desktop
 * (the platform integration's themeNames: kde, gnome/gtk3, generic...);
 * the first that loads, as a plugin or as one of Qt's built-in themes.
 * Whatever the bridge does or does not do, the wrapped theme answers. */
#include "menubus-qt.h"

#include <QtCore/QTimer>
#include <QtGui/QIcon>
#include <QtGui/qpa/qplatformtheme.h>
#include <QtGui/qpa/qplatformthemeplugin.h>
#include <QtWidgets/QApplication>

#include <memory>

/* The theme: the wrapped one's answers, MenuBus's bridge beside. */
class MbTheme : public QPlatformTheme
{
public:
    MbTheme()
    {
        m_wrapped.reset(createWrapped());
        /* Once the application is whole (the theme is made while
         * QGuiApplication is constructed, before the app names itself) and
         * its loop runs: GLib's loop, when the bridge is to run. */
        if (QCoreApplication *app = QCoreApplication::instance())
            QTimer::singleShot(0, app, []() { mbqt::startBridge(); });
    }

    QPlatformTheme *wrapped() const { return m_wrapped.get(); }

    QPlatformMenuItem *createPlatformMenuItem() const override
    { return m_wrapped ? m_wrapped->createPlatformMenuItem() : QPlatformTheme::createPlatformMenuItem(); }
    QPlatformMenu *createPlatformMenu() const override
    { return m_wrapped ? m_wrapped->createPlatformMenu() : QPlatformTheme::createPlatformMenu(); }
    QPlatformMenuBar *createPlatformMenuBar() const override
    { return m_wrapped ? m_wrapped->createPlatformMenuBar() : QPlatformTheme::createPlatformMenuBar(); }
    void showPlatformMenuBar() override
    { if (m_wrapped) m_wrapped->showPlatformMenuBar(); }
    bool usePlatformNativeDialog(DialogType type) const override
    { return m_wrapped ? m_wrapped->usePlatformNativeDialog(type) : QPlatformTheme::usePlatformNativeDialog(type); }
    QPlatformDialogHelper *createPlatformDialogHelper(DialogType type) const override
    { return m_wrapped ? m_wrapped->createPlatformDialogHelper(type) : QPlatformTheme::createPlatformDialogHelper(type); }
#ifndef QT_NO_SYSTEMTRAYICON
    QPlatformSystemTrayIcon *createPlatformSystemTrayIcon() const override
    { return m_wrapped ? m_wrapped->createPlatformSystemTrayIcon() : QPlatformTheme::createPlatformSystemTrayIcon(); }
#endif
    const QPalette *palette(Palette type) const override
    { return m_wrapped ? m_wrapped->palette(type) : QPlatformTheme::palette(type); }
    const QFont *font(Font type) const override
    { return m_wrapped ? m_wrapped->font(type) : QPlatformTheme::font(type); }
    QVariant themeHint(ThemeHint hint) const override
    { return m_wrapped ? m_wrapped->themeHint(hint) : QPlatformTheme::themeHint(hint); }
    QPixmap standardPixmap(StandardPixmap sp, const QSizeF &size) const override
    { return m_wrapped ? m_wrapped->standardPixmap(sp, size) : QPlatformTheme::standardPixmap(sp, size); }
    QIcon fileIcon(const QFileInfo &fileInfo, QPlatformTheme::IconOptions options) const override
    { return m_wrapped ? m_wrapped->fileIcon(fileInfo, options) : QPlatformTheme::fileIcon(fileInfo, options); }
    QIconEngine *createIconEngine(const QString &iconName) const override
    { return m_wrapped ? m_wrapped->createIconEngine(iconName) : QPlatformTheme::createIconEngine(iconName); }
    QList<QKeySequence> keyBindings(QKeySequence::StandardKey key) const override
    { return m_wrapped ? m_wrapped->keyBindings(key) : QPlatformTheme::keyBindings(key); }
    QString standardButtonText(int button) const override
    { return m_wrapped ? m_wrapped->standardButtonText(button) : QPlatformTheme::standardButtonText(button); }
    QKeySequence standardButtonShortcut(int button) const override
    { return m_wrapped ? m_wrapped->standardButtonShortcut(button) : QPlatformTheme::standardButtonShortcut(button); }
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    Qt::ColorScheme colorScheme() const override
    { return m_wrapped ? m_wrapped->colorScheme() : QPlatformTheme::colorScheme(); }
#elif QT_VERSION >= QT_VERSION_CHECK(6, 4, 0)
    Appearance appearance() const override
    { return m_wrapped ? m_wrapped->appearance() : QPlatformTheme::appearance(); }
#endif

private:
    /* MENUBUS_QT_WRAPPED_THEME's names, then those Qt would try here,
     * chosen as QGuiApplication chooses: the first name a plugin serves,
     * else the first the platform integration builds in (so `generic` on
     * GNOME is gtk3 where its plugin is installed, as without the wrapper). */
    static QPlatformTheme *createWrapped()
    {
        QStringList names;
        const QStringList named = qEnvironmentVariable("MENUBUS_QT_WRAPPED_THEME").split(QLatin1Char(':'), Qt::SkipEmptyParts);
        for (const QString &name : named + mbqt::platformThemeNames())
            if (name.compare(QLatin1String("menubus"), Qt::CaseInsensitive) != 0 && !names.contains(name))
                names += name;
        return mbqt::createWrappedTheme(names);
    }

    std::unique_ptr<QPlatformTheme> m_wrapped;
};

class MbThemePlugin : public QPlatformThemePlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID QPlatformThemeFactoryInterface_iid FILE "menubus.json")
public:
    QPlatformTheme *create(const QString &key, const QStringList &params) override
    {
        Q_UNUSED(params);
        if (key.compare(QLatin1String("menubus"), Qt::CaseInsensitive) != 0)
            return nullptr;
        return new MbTheme();
    }
};

#include "menubus-qt-theme.moc"
