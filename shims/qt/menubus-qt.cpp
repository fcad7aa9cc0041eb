/* MenuBus in unmodified Qt Widgets apps: a platform-theme plugin (key
 * `menubus`, QT_QPA_PLATFORMTHEME=menubus) that wraps the theme the app
 * would have had and forwards every QPlatformTheme call to it, and
 * installs an application-wide event filter. Every QLineEdit, QTextEdit,
 * QPlainTextEdit and selectable QLabel is then a MenuBus context while it
 * has the focus, its selection and the clipboard following, coalesced;
 * Qt's standard edit menu gets MenuBus's items for the selection.
 *
 * The wrapped theme: the names in MENUBUS_QT_WRAPPED_THEME (colon
 * separated) first, then the ones Qt itself would try for this desktop
 * (the platform integration's themeNames: kde, gnome/gtk3, generic...);
 * the first that loads, as a plugin or as one of Qt's built-in themes.
 *
 * Nothing waits on menubusd except the menu about to show, and that for at
 * most MENUBUS_QT_DEADLINE_MS (the GTK shim's 50 ms): past it, or with
 * menubusd not running, Qt's menu shows as it is, and MenuBus's items are
 * added to it while it is open once the presentation brings them (as are
 * later changes: deferred items, a changed clipboard).
 *
 * Left out, as by the GTK module (the theme still forwards): an app with
 * MENUBUS_DISABLE=1 (anything but 0) in its environment, or whose
 * executable or application name is in `[Exclude] Apps=` of
 * menubus/integration.conf in the user's or the system's config folders;
 * one widget with the property `menubus-exclude` true. */

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QHash>
#include <QtCore/QPointer>
#include <QtCore/QTimer>
#include <QtCore/QVariant>
#include <QtDBus/QDBusArgument>
#include <QtDBus/QDBusConnection>
#include <QtDBus/QDBusConnectionInterface>
#include <QtDBus/QDBusMessage>
#include <QtDBus/QDBusMetaType>
#include <QtDBus/QDBusPendingCallWatcher>
#include <QtDBus/QDBusPendingReply>
#include <QtDBus/QDBusServiceWatcher>
#include <QtDBus/QDBusVirtualObject>
#include <QtGui/QClipboard>
#include <QtGui/QContextMenuEvent>
#include <QtGui/QGuiApplication>
#include <QtGui/QIcon>
#include <QtCore/QMimeData>
#include <QtGui/QTextBlock>
#include <QtGui/QTextCursor>
#include <QtGui/QTextDocument>
#include <QtGui/QTextDocumentFragment>
#include <QtGui/qpa/qplatformintegration.h>
#include <QtGui/qpa/qplatformtheme.h>
#include <QtGui/qpa/qplatformthemeplugin.h>
#include <QtGui/private/qguiapplication_p.h>
#include <QtGui/qpa/qplatformthemefactory_p.h>
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
#include <QtGui/QActionGroup>
#else
#include <QtWidgets/QActionGroup>
#endif
#include <QtWidgets/QApplication>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QTextEdit>

#include <memory>

#include "client-interface.h"

namespace {

const char *const BUS_NAME = "org.menubus.MenuBus1";
const char *const MANAGER_PATH = "/org/menubus/MenuBus1";
const char *const MANAGER_IFACE = "org.menubus.MenuBus1";
const char *const MENU_IFACE = "org.menubus.MenuBus1.Menu";
const char *const CLIENT_PATH = "/org/menubus/Client";
const int DEFAULT_DEADLINE_MS = 50;
/* Longer text is not sent: providers ask GetSelectedText. */
const int MAX_TEXT_BYTES = 65536;

bool debugging()
{
    static const bool on = qEnvironmentVariableIsSet("MENUBUS_DEBUG");
    return on;
}

#define MB_DEBUG(...) do { if (debugging()) qDebug("menubus-qt: " __VA_ARGS__); } while (0)

} // namespace

/* One element of a menu, a(ssa{sv}). */
struct MbElement {
    QString id;
    QString parent;
    QVariantMap properties;
};
Q_DECLARE_METATYPE(MbElement)

QDBusArgument &operator<<(QDBusArgument &argument, const MbElement &element)
{
    argument.beginStructure();
    argument << element.id << element.parent << element.properties;
    argument.endStructure();
    return argument;
}

const QDBusArgument &operator>>(const QDBusArgument &argument, MbElement &element)
{
    argument.beginStructure();
    argument >> element.id >> element.parent >> element.properties;
    argument.endStructure();
    return argument;
}

typedef QList<MbElement> MbElements;

namespace {

/* The standard commands Qt's own edit menus show: MenuBus's are left out. */
QStringList qtCommands()
{
    return { QStringLiteral("undo"), QStringLiteral("redo"), QStringLiteral("cut"), QStringLiteral("copy"),
             QStringLiteral("paste"), QStringLiteral("delete"), QStringLiteral("select-all") };
}

QStringList stringList(const QVariant &value)
{
    if (value.canConvert<QDBusArgument>()) {
        QStringList list;
        value.value<QDBusArgument>() >> list;
        return list;
    }
    return value.toStringList();
}

/* "<Control><Shift>z" → "Ctrl+Shift+Z", for display only. */
QKeySequence shortcutOf(const QString &accel)
{
    QString text = accel;
    text.replace(QLatin1String("<Control>"), QLatin1String("Ctrl+"))
        .replace(QLatin1String("<Primary>"), QLatin1String("Ctrl+"))
        .replace(QLatin1String("<Shift>"), QLatin1String("Shift+"))
        .replace(QLatin1String("<Alt>"), QLatin1String("Alt+"))
        .replace(QLatin1String("<Super>"), QLatin1String("Meta+"));
    return QKeySequence::fromString(text);
}

/* A QTextEdit that takes rich text: Format ▸ Bold, Italic, Underline apply. */
bool isRichText(QWidget *widget)
{
    auto *edit = qobject_cast<QTextEdit *>(widget);
    return edit && edit->acceptRichText() && !edit->isReadOnly();
}

/* bold, italic, underline: each in effect over the whole selection (or at
 * the caret). A selection of more than 10,000 differently formatted runs
 * counts as unformatted rather than be read whole on each change. */
QStringList textAttributes(const QTextCursor &cursor)
{
    bool bold = true, italic = true, underline = true;
    auto take = [&](const QTextCharFormat &format) {
        bold = bold && format.fontWeight() > QFont::Normal;
        italic = italic && format.fontItalic();
        underline = underline && format.fontUnderline();
    };
    const int start = cursor.selectionStart(), end = cursor.selectionEnd();
    if (start == end) {
        take(cursor.charFormat());
    } else {
        int runs = 0;
        for (QTextBlock block = cursor.document()->findBlock(start); block.isValid() && block.position() < end;
             block = block.next())
            for (QTextBlock::iterator it = block.begin(); !it.atEnd(); ++it) {
                const QTextFragment fragment = it.fragment();
                if (fragment.position() + fragment.length() <= start || fragment.position() >= end)
                    continue;
                if (++runs > 10000)
                    return {};
                take(fragment.charFormat());
            }
    }
    QStringList attributes;
    if (bold)
        attributes << QStringLiteral("bold");
    if (italic)
        attributes << QStringLiteral("italic");
    if (underline)
        attributes << QStringLiteral("underline");
    return attributes;
}

/* Bold, Italic or Underline chosen: on for the whole selection unless it
 * is already, as one undo step. */
void toggleFormat(QTextEdit *edit, const QString &command)
{
    QTextCursor cursor = edit->textCursor();
    const bool on = textAttributes(cursor).contains(command);
    QTextCharFormat format;
    if (command == QLatin1String("bold"))
        format.setFontWeight(on ? QFont::Normal : QFont::Bold);
    else if (command == QLatin1String("italic"))
        format.setFontItalic(!on);
    else
        format.setFontUnderline(!on);
    if (cursor.hasSelection())
        cursor.mergeCharFormat(format);
    else
        edit->mergeCurrentCharFormat(format);
}

/* Bold, Italic and Underline keep their check box while off. */
bool isToggleCommand(const QString &command)
{
    return command == QLatin1String("bold") || command == QLatin1String("italic")
        || command == QLatin1String("underline");
}

} // namespace

/* A text widget while it takes part: its context on menubusd's side. */
struct MbField {
    QPointer<QWidget> widget;
    QString id;
    bool published = false;
    bool inFlight = false; /* an UpdateSelection of it is out */
    bool dirty = false;    /* changed while one was out */
    QVariantMap context;   /* as last published */
    /* MenuBus's last replace-selection, while it is the widget's newest
     * undo step: its name, and the document's revision (QTextEdit,
     * QPlainTextEdit) or the text (QLineEdit) right after it. */
    QString undoName;
    int undoRevision = -1;
    QString undoText;
};

/* One edit menu shown with MenuBus's items, and its presentation. */
struct MbPresentation {
    QPointer<QMenu> menu;
    QString path;      /* "" until PresentMenu answered */
    bool failed = false;
    bool closed = false;
    bool chosen = false;
    QString pending;   /* an item chosen before the presentation came */
    MbElements items;  /* what is shown of MenuBus's */
    QList<QPointer<QAction>> actions; /* what was added to the menu's top level */
};

bool operator==(const MbElement &a, const MbElement &b)
{
    return a.id == b.id && a.parent == b.parent && a.properties == b.properties;
}

class MbClientObject;

class MbBridge : public QObject
{
    Q_OBJECT
public:
    static MbBridge *instance();
    bool eventFilter(QObject *watched, QEvent *event) override;
    bool handleClientCall(const QDBusMessage &message, const QDBusConnection &connection);

private:
    MbBridge();
    QDBusConnection bus() const { return QDBusConnection::sessionBus(); }
    QDBusMessage managerCall(const char *method) const;
    QWidget *textWidgetOf(QObject *object) const;
    MbField *fieldOf(QWidget *widget, bool create);
    MbField *fieldById(const QString &id) const;
    void focused(MbField *field);
    void changed(MbField *field);
    void ensureRegistered();
    void publish(MbField *field);
    void sendSelection(MbField *field);
    QVariantMap contextOf(QWidget *widget) const;
    QVariantMap selectionOf(QWidget *widget) const;
    QString selectedText(QWidget *widget) const;
    void watchWidget(QWidget *widget, MbField *field);
    void menuAboutToShow(QMenu *menu, QPointer<QWidget> widget);
    void presented(std::shared_ptr<MbPresentation> presentation, const QString &path);
    void ended(std::shared_ptr<MbPresentation> presentation);
    void showItems(std::shared_ptr<MbPresentation> presentation, const MbElements &items);
    void addItems(QMenu *menu, const MbElements &items, std::shared_ptr<MbPresentation> presentation);
    void activate(std::shared_ptr<MbPresentation> presentation, const QString &item);
    void perform(QWidget *widget, const QString &command, const QVariantMap &arguments);
    void nameUndo(QMenu *menu, QWidget *widget);
    QString appId() const;
    void daemonChanged(const QString &owner);
    void readClipboard();

private Q_SLOTS:
    /* A live presentation's LayoutChanged and Closed. */
    void layoutChanged(const QDBusMessage &message);
    void menuClosed(const QDBusMessage &message);

private:
    QHash<QWidget *, MbField *> m_fields;
    QHash<QString, std::shared_ptr<MbPresentation>> m_live; /* by path */
    int m_serial = 0;
    QString m_daemon;        /* menubusd's unique name, "" while it is not running */
    bool m_registered = false;
    bool m_clientExported = false;
    QPointer<QWidget> m_focused;
    QPointer<QWidget> m_menuTarget; /* a context menu event is going to it */
    QStringList m_clipboard;
    int m_deadline = DEFAULT_DEADLINE_MS;
    /* A menu's wait timed out: until menubusd answers again, menus do not
     * wait (their items join them while open, if they come). */
    bool m_stalled = false;
    MbClientObject *m_client = nullptr;
};

/* org.menubus.MenuBus1.Client at /org/menubus/Client. */
class MbClientObject : public QDBusVirtualObject
{
public:
    explicit MbClientObject(MbBridge *bridge) : QDBusVirtualObject(bridge), m_bridge(bridge) {}
    QString introspect(const QString &path) const override
    {
        Q_UNUSED(path);
        const QString xml = QString::fromUtf8(MB_CLIENT_XML);
        const int start = xml.indexOf(QLatin1String("<interface"));
        const int end = xml.lastIndexOf(QLatin1String("</interface>"));
        return start < 0 || end < 0 ? QString() : xml.mid(start, end + 12 - start);
    }
    bool handleMessage(const QDBusMessage &message, const QDBusConnection &connection) override
    {
        return m_bridge->handleClientCall(message, connection);
    }

private:
    MbBridge *m_bridge;
};

MbBridge *MbBridge::instance()
{
    static QPointer<MbBridge> bridge;
    if (!bridge)
        bridge = new MbBridge();
    return bridge;
}

MbBridge::MbBridge() : QObject(QCoreApplication::instance())
{
    qDBusRegisterMetaType<MbElement>();
    qDBusRegisterMetaType<MbElements>();
    bool ok = false;
    const int deadline = qEnvironmentVariableIntValue("MENUBUS_QT_DEADLINE_MS", &ok);
    if (ok && deadline >= 0)
        m_deadline = deadline;
    QCoreApplication::instance()->installEventFilter(this);

    auto *watcher = new QDBusServiceWatcher(QString::fromLatin1(BUS_NAME), bus(),
                                            QDBusServiceWatcher::WatchForOwnerChange, this);
    connect(watcher, &QDBusServiceWatcher::serviceOwnerChanged, this,
            [this](const QString &, const QString &, const QString &owner) { daemonChanged(owner); });
    QDBusMessage ask = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.DBus"),
                                                      QStringLiteral("/org/freedesktop/DBus"),
                                                      QStringLiteral("org.freedesktop.DBus"),
                                                      QStringLiteral("GetNameOwner"));
    ask << QString::fromLatin1(BUS_NAME);
    auto *call = new QDBusPendingCallWatcher(bus().asyncCall(ask), this);
    connect(call, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
        QDBusPendingReply<QString> reply = *w;
        if (!reply.isError() && m_daemon.isEmpty())
            daemonChanged(reply.value());
        w->deleteLater();
    });

    m_client = new MbClientObject(this);
    m_clientExported = bus().registerVirtualObject(QString::fromLatin1(CLIENT_PATH), m_client);

    /* Another program's clipboard is read only when Qt reads it too (an
     * edit menu about to show): asking its owner waits on that program,
     * up to Qt's clipboard timeout. This app's own is read at once. */
    if (auto *clipboard = QGuiApplication::clipboard())
        connect(clipboard, &QClipboard::dataChanged, this, [this, clipboard]() {
            m_clipboard.clear();
            if (clipboard->ownsClipboard())
                readClipboard();
            if (MbField *field = m_focused ? fieldOf(m_focused, false) : nullptr)
                changed(field);
        });
}

void MbBridge::readClipboard()
{
    const QMimeData *data = QGuiApplication::clipboard()->mimeData(QClipboard::Clipboard);
    m_clipboard = data ? data->formats() : QStringList();
}

void MbBridge::daemonChanged(const QString &owner)
{
    MB_DEBUG("menubusd is %s", owner.isEmpty() ? "gone" : qPrintable(owner));
    m_daemon = owner;
    m_stalled = false;
    m_registered = false;
    for (MbField *field : qAsConst(m_fields)) {
        field->published = false;
        field->inFlight = false;
        field->dirty = false;
    }
    if (!owner.isEmpty() && m_focused)
        if (MbField *field = fieldOf(m_focused, false))
            focused(field);
}

QDBusMessage MbBridge::managerCall(const char *method) const
{
    return QDBusMessage::createMethodCall(QString::fromLatin1(BUS_NAME), QString::fromLatin1(MANAGER_PATH),
                                          QString::fromLatin1(MANAGER_IFACE), QString::fromLatin1(method));
}

/* The text widget `object` is, or the viewport of. */
QWidget *MbBridge::textWidgetOf(QObject *object) const
{
    if (!object || !object->isWidgetType())
        return nullptr;
    auto *widget = static_cast<QWidget *>(object);
    QWidget *text = nullptr;
    if (qobject_cast<QLineEdit *>(widget) || qobject_cast<QTextEdit *>(widget) || qobject_cast<QPlainTextEdit *>(widget))
        text = widget;
    else if (auto *label = qobject_cast<QLabel *>(widget))
        text = label->textInteractionFlags() & (Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard) ? widget : nullptr;
    else if (auto *edit = qobject_cast<QTextEdit *>(widget->parentWidget()))
        text = edit->viewport() == widget ? edit : nullptr;
    else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget->parentWidget()))
        text = edit->viewport() == widget ? edit : nullptr;
    return text && !text->property("menubus-exclude").toBool() ? text : nullptr;
}

QString MbBridge::appId() const
{
    auto valid = [](const QString &id) {
        const QStringList parts = id.split(QLatin1Char('.'));
        if (id.size() > 255 || parts.size() < 2)
            return false;
        for (const QString &part : parts) {
            if (part.isEmpty() || part.at(0).isDigit())
                return false;
            for (QChar c : part)
                if (!(c.unicode() < 128 && (c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('-'))))
                    return false;
        }
        return true;
    };
    QString desktop = QGuiApplication::desktopFileName();
    if (desktop.endsWith(QLatin1String(".desktop")))
        desktop.chop(8);
    if (valid(desktop))
        return desktop;
    QString name = desktop.isEmpty() ? QCoreApplication::applicationName() : desktop;
    if (name.isEmpty())
        name = QStringLiteral("unnamed");
    QString safe = QStringLiteral("local.");
    if (name.at(0).isDigit())
        safe += QLatin1Char('_');
    for (QChar c : name)
        safe += c.unicode() < 128 && (c.isLetterOrNumber() || c == QLatin1Char('-')) ? c : QLatin1Char('_');
    return safe;
}

MbField *MbBridge::fieldOf(QWidget *widget, bool create)
{
    if (MbField *field = m_fields.value(widget))
        return field;
    if (!create)
        return nullptr;
    auto *field = new MbField;
    field->widget = widget;
    field->id = QStringLiteral("qt-field-%1").arg(++m_serial);
    m_fields.insert(widget, field);
    watchWidget(widget, field);
    return field;
}

MbField *MbBridge::fieldById(const QString &id) const
{
    for (MbField *field : m_fields)
        if (field->id == id)
            return field;
    return nullptr;
}

void MbBridge::watchWidget(QWidget *widget, MbField *field)
{
    auto update = [this, widget]() {
        if (MbField *f = fieldOf(widget, false))
            changed(f);
    };
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        connect(edit, &QLineEdit::selectionChanged, this, update);
        connect(edit, &QLineEdit::textChanged, this, update);
        connect(edit, &QLineEdit::cursorPositionChanged, this, update);
    } else if (auto *edit = qobject_cast<QTextEdit *>(widget)) {
        connect(edit, &QTextEdit::selectionChanged, this, update);
        connect(edit, &QTextEdit::textChanged, this, update);
        connect(edit, &QTextEdit::currentCharFormatChanged, this, update);
    } else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget)) {
        connect(edit, &QPlainTextEdit::selectionChanged, this, update);
        connect(edit, &QPlainTextEdit::textChanged, this, update);
    }
    const QString id = field->id;
    connect(widget, &QObject::destroyed, this, [this, widget, id]() {
        delete m_fields.take(widget);
        if (!m_daemon.isEmpty()) {
            QDBusMessage remove = managerCall("RemoveContext");
            remove << id;
            bus().asyncCall(remove);
        }
    });
}

QString MbBridge::selectedText(QWidget *widget) const
{
    QString text;
    if (auto *edit = qobject_cast<QLineEdit *>(widget))
        text = edit->selectedText();
    else if (auto *edit = qobject_cast<QTextEdit *>(widget))
        text = edit->textCursor().selection().toPlainText();
    else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget))
        text = edit->textCursor().selection().toPlainText();
    else if (auto *label = qobject_cast<QLabel *>(widget))
        text = label->selectedText();
    return text;
}

QVariantMap MbBridge::contextOf(QWidget *widget) const
{
    bool editable = false, content = false;
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        editable = !edit->isReadOnly();
        content = !edit->text().isEmpty();
    } else if (auto *edit = qobject_cast<QTextEdit *>(widget)) {
        editable = !edit->isReadOnly();
        content = !edit->document()->isEmpty();
    } else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget)) {
        editable = !edit->isReadOnly();
        content = !edit->document()->isEmpty();
    } else if (auto *label = qobject_cast<QLabel *>(widget)) {
        content = !label->text().isEmpty();
    }
    QStringList commands = { QStringLiteral("copy"), QStringLiteral("select-all"), QStringLiteral("lookup"),
                             QStringLiteral("translate"), QStringLiteral("search-web"), QStringLiteral("share") };
    if (editable)
        commands << QStringLiteral("cut") << QStringLiteral("paste") << QStringLiteral("delete")
                 << QStringLiteral("replace-selection") << QStringLiteral("undo") << QStringLiteral("redo");
    const bool rich = isRichText(widget);
    if (rich)
        commands << QStringLiteral("bold") << QStringLiteral("italic") << QStringLiteral("underline")
                 << QStringLiteral("paste-and-match-style");
    QVariantMap context;
    context.insert(QStringLiteral("kind"), QStringLiteral("text"));
    context.insert(QStringLiteral("editable"), editable);
    context.insert(QStringLiteral("has-content"), content);
    context.insert(QStringLiteral("rich-text"), rich);
    context.insert(QStringLiteral("content-types"), rich ? QStringList { QStringLiteral("text/html"), QStringLiteral("text/plain") }
                                                          : QStringList { QStringLiteral("text/plain") });
    context.insert(QStringLiteral("supported-commands"), commands);
    return context;
}

QVariantMap MbBridge::selectionOf(QWidget *widget) const
{
    const QString text = selectedText(widget);
    int total = 0;
    bool caret = true;
    if (auto *edit = qobject_cast<QLineEdit *>(widget))
        total = edit->text().size();
    else if (auto *edit = qobject_cast<QTextEdit *>(widget))
        total = edit->document()->characterCount() - 1;
    else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget))
        total = edit->document()->characterCount() - 1;
    else if (auto *label = qobject_cast<QLabel *>(widget))
        total = label->text().size(), caret = false;
    QString kind = text.isEmpty() ? (caret ? QStringLiteral("caret") : QStringLiteral("none"))
                 : text.size() >= total ? QStringLiteral("all") : QStringLiteral("range");
    QVariantMap selection;
    selection.insert(QStringLiteral("kind"), kind);
    selection.insert(QStringLiteral("length"), uint(text.size()));
    if (!text.isEmpty() && text.toUtf8().size() <= MAX_TEXT_BYTES)
        selection.insert(QStringLiteral("text"), text);
    if (isRichText(widget))
        selection.insert(QStringLiteral("attributes"), textAttributes(static_cast<QTextEdit *>(widget)->textCursor()));
    if (!m_clipboard.isEmpty())
        selection.insert(QStringLiteral("pasteboard-types"), m_clipboard);
    return selection;
}

void MbBridge::ensureRegistered()
{
    if (m_registered)
        return;
    m_registered = true;
    QDBusMessage call = managerCall("Register");
    call << appId() << QVariant::fromValue(QDBusObjectPath(QString::fromLatin1(CLIENT_PATH))) << QVariantMap();
    auto *watcher = new QDBusPendingCallWatcher(bus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [](QDBusPendingCallWatcher *w) {
        if (w->isError())
            MB_DEBUG("Register: %s", qPrintable(w->error().message()));
        w->deleteLater();
    });
}

void MbBridge::publish(MbField *field)
{
    ensureRegistered();
    field->context = contextOf(field->widget);
    field->published = true;
    QDBusMessage call = managerCall("PublishContext");
    call << field->id << field->context << QVariant::fromValue(MbElements());
    auto *watcher = new QDBusPendingCallWatcher(bus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [](QDBusPendingCallWatcher *w) {
        if (w->isError())
            MB_DEBUG("PublishContext: %s", qPrintable(w->error().message()));
        w->deleteLater();
    });
    sendSelection(field);
}

void MbBridge::focused(MbField *field)
{
    m_focused = field->widget;
    if (!field->published)
        publish(field);
    else
        changed(field);
}

void MbBridge::changed(MbField *field)
{
    if (!field->published || !field->widget)
        return;
    if (field->inFlight) {
        field->dirty = true;
        return;
    }
    if (contextOf(field->widget) != field->context) {
        publish(field);
        return;
    }
    sendSelection(field);
}

/* One UpdateSelection in flight a field; what changed meanwhile follows it. */
void MbBridge::sendSelection(MbField *field)
{
    if (field->inFlight) {
        field->dirty = true;
        return;
    }
    field->inFlight = true;
    field->dirty = false;
    QDBusMessage call = managerCall("UpdateSelection");
    call << field->id << selectionOf(field->widget);
    QPointer<QWidget> widget = field->widget;
    auto *watcher = new QDBusPendingCallWatcher(bus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, widget](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        MbField *f = widget ? fieldOf(widget, false) : nullptr;
        if (!f)
            return;
        f->inFlight = false;
        if (w->isError()) {
            MB_DEBUG("UpdateSelection: %s", qPrintable(w->error().message()));
            if (w->error().name().endsWith(QLatin1String("NoSuchContext")) ||
                w->error().name().endsWith(QLatin1String("NotRegistered"))) {
                m_registered = false;
                f->published = false;
                if (m_focused == widget && !m_daemon.isEmpty())
                    publish(f);
                return;
            }
        }
        if (f->dirty)
            changed(f);
    });
}

bool MbBridge::eventFilter(QObject *watched, QEvent *event)
{
    switch (event->type()) {
    case QEvent::FocusIn:
        if (QWidget *widget = textWidgetOf(watched))
            focused(fieldOf(widget, true));
        break;
    case QEvent::MouseButtonRelease:
    case QEvent::KeyRelease:
        /* A QLabel has no selectionChanged: its selection is read once the
         * mouse or the keyboard may have moved it. */
        if (auto *label = qobject_cast<QLabel *>(watched))
            if (MbField *field = fieldOf(label, false))
                changed(field);
        break;
    case QEvent::ContextMenu:
        if (QWidget *widget = textWidgetOf(watched)) {
            /* The menu Qt shows while this event is delivered is the widget's. */
            m_menuTarget = widget;
            QTimer::singleShot(0, this, [this]() { m_menuTarget = nullptr; });
        }
        break;
    case QEvent::Polish:
        if (auto *menu = qobject_cast<QMenu *>(watched)) {
            QPointer<QWidget> target = m_menuTarget;
            if (!target && menu->objectName() == QLatin1String("qt_edit_menu"))
                target = textWidgetOf(menu->parentWidget());
            if (target) {
                QPointer<QMenu> guard = menu;
                connect(menu, &QMenu::aboutToShow, this, [this, guard, target]() {
                    if (guard)
                        menuAboutToShow(guard, target);
                }, Qt::DirectConnection);
            }
        }
        break;
    default:
        break;
    }
    return false;
}

void MbBridge::menuAboutToShow(QMenu *menu, QPointer<QWidget> widget)
{
    if (!widget || menu->property("menubus-extended").toBool())
        return;
    nameUndo(menu, widget);
    if (m_daemon.isEmpty())
        return;
    menu->setProperty("menubus-extended", true);
    MbField *field = fieldOf(widget, true);
    m_focused = widget;
    /* Qt's menu has just read the clipboard to enable its Paste. */
    const QVariantMap context = contextOf(widget);
    if (context.value(QStringLiteral("editable")).toBool())
        readClipboard();
    /* The context and the selection as they are now reach menubusd before
     * the question (one connection keeps the order). */
    if (!field->published || context != field->context) {
        publish(field);
    } else {
        QDBusMessage update = managerCall("UpdateSelection");
        update << field->id << selectionOf(widget);
        bus().asyncCall(update);
    }
    QVariantMap options;
    options.insert(QStringLiteral("omit-commands"), qtCommands());
    QDBusMessage ask = managerCall("GetEditMenu");
    ask << QString() << field->id << options;
    /* A deadline of 0 waits for nothing, nor does a menu while menubusd
     * is stalled: the items come with the presentation. */
    const bool wait = m_deadline > 0 && !m_stalled;
    const QDBusMessage reply = wait ? bus().call(ask, QDBus::Block, m_deadline)
                                    : ask.createErrorReply(QStringLiteral("org.freedesktop.DBus.Error.NoReply"),
                                                           QStringLiteral("not waited for"));
    if (wait && reply.type() == QDBusMessage::ErrorMessage
        && (reply.errorName() == QLatin1String("org.freedesktop.DBus.Error.NoReply")
            || reply.errorName() == QLatin1String("org.freedesktop.DBus.Error.Timeout")))
        m_stalled = true;
    MbElements items;
    if (reply.type() == QDBusMessage::ReplyMessage && reply.arguments().size() >= 2) {
        items = qdbus_cast<MbElements>(reply.arguments().at(1));
        if (items.isEmpty())
            return;
    } else {
        /* Too late or failed: Qt's menu opens as it is, and what the
         * presentation brings is added while it is open. */
        MB_DEBUG("GetEditMenu: %s", qPrintable(reply.errorMessage()));
        if (reply.type() == QDBusMessage::ErrorMessage && reply.errorName() != QLatin1String("org.freedesktop.DBus.Error.NoReply")
            && reply.errorName() != QLatin1String("org.freedesktop.DBus.Error.Timeout"))
            return;
    }

    auto presentation = std::make_shared<MbPresentation>();
    presentation->menu = menu;
    if (!items.isEmpty())
        showItems(presentation, items);

    QDBusMessage present = managerCall("PresentMenu");
    present << QString() << field->id << QStringLiteral("edit") << options;
    auto *watcher = new QDBusPendingCallWatcher(bus().asyncCall(present), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, presentation](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        QDBusPendingReply<QDBusObjectPath> reply = *w;
        if (!reply.isError() || (reply.error().type() != QDBusError::NoReply && reply.error().type() != QDBusError::Timeout))
            m_stalled = false; /* menubusd answers again */
        if (reply.isError()) {
            MB_DEBUG("PresentMenu: %s", qPrintable(reply.error().message()));
            presentation->failed = true;
            return;
        }
        presented(presentation, reply.value().path());
    });
    /* Qt hides the menu before it triggers the chosen action: whether
     * anything was chosen is known on the next turn of the loop. */
    connect(menu, &QMenu::aboutToHide, this, [this, presentation]() {
        QTimer::singleShot(0, this, [this, presentation]() {
            if (presentation->closed)
                return;
            presentation->closed = true;
            ended(presentation);
            if (!presentation->chosen && !presentation->path.isEmpty())
                bus().asyncCall(QDBusMessage::createMethodCall(m_daemon, presentation->path,
                                                               QString::fromLatin1(MENU_IFACE), QStringLiteral("Dismiss")));
        });
    });
}

/* The presentation is live: its changes follow while the menu is open. */
void MbBridge::presented(std::shared_ptr<MbPresentation> presentation, const QString &path)
{
    presentation->path = path;
    if (!presentation->pending.isEmpty()) {
        activate(presentation, presentation->pending);
        return;
    }
    if (presentation->closed) {
        if (!presentation->chosen)
            bus().asyncCall(QDBusMessage::createMethodCall(m_daemon, path, QString::fromLatin1(MENU_IFACE), QStringLiteral("Dismiss")));
        return;
    }
    m_live.insert(path, presentation);
    bus().connect(m_daemon, path, QString::fromLatin1(MENU_IFACE), QStringLiteral("LayoutChanged"),
                  this, SLOT(layoutChanged(QDBusMessage)));
    bus().connect(m_daemon, path, QString::fromLatin1(MENU_IFACE), QStringLiteral("Closed"),
                  this, SLOT(menuClosed(QDBusMessage)));
    /* What changed between GetEditMenu and the presentation (or all of it,
     * when GetEditMenu came too late). */
    auto *watcher = new QDBusPendingCallWatcher(
        bus().asyncCall(QDBusMessage::createMethodCall(m_daemon, path, QString::fromLatin1(MENU_IFACE), QStringLiteral("GetLayout"))), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, presentation](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        const QDBusMessage reply = w->reply();
        if (reply.type() == QDBusMessage::ReplyMessage && reply.arguments().size() >= 2 && !presentation->closed)
            showItems(presentation, qdbus_cast<MbElements>(reply.arguments().at(1)));
    });
}

void MbBridge::ended(std::shared_ptr<MbPresentation> presentation)
{
    if (presentation->path.isEmpty() || !m_live.contains(presentation->path))
        return;
    m_live.remove(presentation->path);
    bus().disconnect(m_daemon, presentation->path, QString::fromLatin1(MENU_IFACE), QStringLiteral("LayoutChanged"),
                     this, SLOT(layoutChanged(QDBusMessage)));
    bus().disconnect(m_daemon, presentation->path, QString::fromLatin1(MENU_IFACE), QStringLiteral("Closed"),
                     this, SLOT(menuClosed(QDBusMessage)));
}

void MbBridge::layoutChanged(const QDBusMessage &message)
{
    std::shared_ptr<MbPresentation> presentation = m_live.value(message.path());
    if (presentation && !presentation->closed && message.arguments().size() >= 2)
        showItems(presentation, qdbus_cast<MbElements>(message.arguments().at(1)));
}

/* Closed on menubusd's side (chosen from, its context gone): what is shown
 * stays until Qt closes the menu, but nothing follows any more. */
void MbBridge::menuClosed(const QDBusMessage &message)
{
    if (std::shared_ptr<MbPresentation> presentation = m_live.value(message.path()))
        ended(presentation);
}

/* MenuBus's part of the menu, replaced when it changed. */
void MbBridge::showItems(std::shared_ptr<MbPresentation> presentation, const MbElements &items)
{
    QMenu *menu = presentation->menu;
    if (!menu || items == presentation->items)
        return;
    for (const QPointer<QAction> &action : qAsConst(presentation->actions)) {
        if (!action)
            continue;
        menu->removeAction(action);
        if (QMenu *sub = action->menu())
            sub->deleteLater();
        action->deleteLater();
    }
    presentation->actions.clear();
    presentation->items = items;
    if (items.isEmpty())
        return;
    const QList<QAction *> before = menu->actions();
    addItems(menu, items, presentation);
    for (QAction *action : menu->actions())
        if (!before.contains(action))
            presentation->actions.append(action);
}

void MbBridge::addItems(QMenu *menu, const MbElements &items, std::shared_ptr<MbPresentation> presentation)
{
    QHash<QString, QMenu *> menus;
    QHash<QMenu *, bool> filled;
    QHash<QString, QActionGroup *> radios; /* single-selection menus, by id */
    menus.insert(QString(), menu);
    filled.insert(menu, false);
    menu->addSeparator();
    for (const MbElement &element : items) {
        QMenu *parent = menus.value(element.parent);
        if (!parent)
            continue;
        const QVariantMap &p = element.properties;
        const QString type = p.value(QStringLiteral("type"), QStringLiteral("action")).toString();
        const QStringList attributes = stringList(p.value(QStringLiteral("attributes")));
        if (attributes.contains(QStringLiteral("hidden")))
            continue;
        const QString title = p.value(QStringLiteral("title")).toString();
        const QString icon = p.value(QStringLiteral("icon")).toString();
        if (type == QLatin1String("menu")) {
            const QStringList options = stringList(p.value(QStringLiteral("options")));
            if (options.contains(QStringLiteral("single-selection")))
                radios.insert(element.id, new QActionGroup(parent));
            if (options.contains(QStringLiteral("inline"))) {
                if (filled.value(parent))
                    parent->addSeparator();
                menus.insert(element.id, parent);
            } else {
                QMenu *sub = parent->addMenu(title);
                if (!icon.isEmpty())
                    sub->setIcon(QIcon::fromTheme(icon));
                sub->setEnabled(!attributes.contains(QStringLiteral("disabled")));
                menus.insert(element.id, sub);
                filled.insert(sub, false);
                filled[parent] = true;
            }
            continue;
        }
        if (type == QLatin1String("deferred")) {
            QAction *loading = parent->addAction(QCoreApplication::translate("MenuBus", "Loading…"));
            loading->setEnabled(false);
            filled[parent] = true;
            continue;
        }
        QString label = title;
        label.replace(QLatin1Char('&'), QLatin1String("&&"));
        QAction *action = parent->addAction(label);
        if (!icon.isEmpty())
            action->setIcon(QIcon::fromTheme(icon));
        action->setEnabled(!attributes.contains(QStringLiteral("disabled")));
        const QString state = p.value(QStringLiteral("state")).toString();
        if (state == QLatin1String("on") || state == QLatin1String("mixed")
            || isToggleCommand(p.value(QStringLiteral("command")).toString())) {
            action->setCheckable(true);
            action->setChecked(state == QLatin1String("on") || state == QLatin1String("mixed"));
        }
        if (QActionGroup *group = radios.value(element.parent)) {
            action->setCheckable(true);
            action->setActionGroup(group);
            action->setChecked(state == QLatin1String("on"));
        }
        const QString shortcut = p.value(QStringLiteral("shortcut")).toString();
        if (!shortcut.isEmpty()) {
            action->setShortcut(shortcutOf(shortcut));
            action->setShortcutContext(Qt::WidgetShortcut);
        }
        const QString id = element.id;
        connect(action, &QAction::triggered, this, [this, presentation, id]() { activate(presentation, id); });
        filled[parent] = true;
    }
}

void MbBridge::activate(std::shared_ptr<MbPresentation> presentation, const QString &item)
{
    presentation->chosen = true;
    if (presentation->path.isEmpty()) {
        if (!presentation->failed)
            presentation->pending = item;
        return;
    }
    presentation->pending.clear();
    QDBusMessage call = QDBusMessage::createMethodCall(m_daemon, presentation->path,
                                                       QString::fromLatin1(MENU_IFACE), QStringLiteral("Activate"));
    call << item << QVariantMap();
    auto *watcher = new QDBusPendingCallWatcher(bus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [](QDBusPendingCallWatcher *w) {
        if (w->isError())
            MB_DEBUG("Activate: %s", qPrintable(w->error().message()));
        w->deleteLater();
    });
}

/* Qt's Undo names MenuBus's step while it is the newest ("Undo Make
 * Uppercase"): the widget's own undo stack holds it, as one step. */
void MbBridge::nameUndo(QMenu *menu, QWidget *widget)
{
    MbField *field = fieldOf(widget, false);
    if (!field || field->undoName.isEmpty())
        return;
    bool newest = false;
    if (auto *edit = qobject_cast<QLineEdit *>(widget))
        newest = edit->text() == field->undoText && edit->isUndoAvailable();
    else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget))
        newest = edit->document()->revision() == field->undoRevision && edit->document()->isUndoAvailable();
    else if (auto *edit = qobject_cast<QTextEdit *>(widget))
        newest = edit->document()->revision() == field->undoRevision && edit->document()->isUndoAvailable();
    if (!newest) {
        field->undoName.clear();
        return;
    }
    /* QWidgetTextControl names its Undo "edit-undo"; QLineEdit's is known
     * by its (translated) text. */
    const QString undoText = QCoreApplication::translate(qobject_cast<QLineEdit *>(widget) ? "QLineEdit" : "QWidgetTextControl", "&Undo");
    for (QAction *action : menu->actions()) {
        if (action->objectName() != QLatin1String("edit-undo") && action->text().section(QLatin1Char('\t'), 0, 0) != undoText)
            continue;
        /* "&Undo\tCtrl+Z" → "&Undo Make Uppercase\tCtrl+Z" */
        QString text = action->text();
        const int tab = text.indexOf(QLatin1Char('\t'));
        QString name = field->undoName;
        name.replace(QLatin1Char('&'), QLatin1String("&&"));
        text.insert(tab < 0 ? text.size() : tab, QLatin1Char(' ') + name);
        action->setText(text);
    }
}

/* A standard command chosen in a menu: the widget's own slots. */
void MbBridge::perform(QWidget *widget, const QString &command, const QVariantMap &arguments)
{
    const QString text = arguments.value(QStringLiteral("text")).toString();
    if (command == QLatin1String("replace-selection"))
        QTimer::singleShot(0, this, [this, widget = QPointer<QWidget>(widget), name = arguments.value(QStringLiteral("undo-name")).toString()]() {
            MbField *field = widget ? fieldOf(widget, false) : nullptr;
            if (!field)
                return;
            field->undoName = name;
            if (auto *edit = qobject_cast<QLineEdit *>(widget))
                field->undoText = edit->text();
            else if (auto *edit = qobject_cast<QPlainTextEdit *>(widget))
                field->undoRevision = edit->document()->revision();
            else if (auto *edit = qobject_cast<QTextEdit *>(widget))
                field->undoRevision = edit->document()->revision();
        });
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        if (command == QLatin1String("replace-selection")) {
            if (edit->isReadOnly())
                return;
            const int start = edit->hasSelectedText() ? edit->selectionStart() : edit->cursorPosition();
            edit->insert(text);
            edit->setSelection(start, text.size());
        } else if (command == QLatin1String("cut")) edit->cut();
        else if (command == QLatin1String("copy")) edit->copy();
        else if (command == QLatin1String("paste")) edit->paste();
        else if (command == QLatin1String("delete")) edit->del();
        else if (command == QLatin1String("select-all")) edit->selectAll();
        else if (command == QLatin1String("undo")) edit->undo();
        else if (command == QLatin1String("redo")) edit->redo();
        return;
    }
    auto replace = [&](QTextCursor cursor) {
        const int start = cursor.selectionStart();
        cursor.beginEditBlock();
        cursor.insertText(text);
        cursor.endEditBlock();
        cursor.setPosition(start);
        cursor.setPosition(start + text.size(), QTextCursor::KeepAnchor);
        return cursor;
    };
    // QPlainTextEdit and QTextEdit have the same slots but no common base with them.
    auto perform = [&](auto *edit) {
        if (command == QLatin1String("replace-selection")) {
            if (!edit->isReadOnly())
                edit->setTextCursor(replace(edit->textCursor()));
        } else if (command == QLatin1String("cut")) edit->cut();
        else if (command == QLatin1String("copy")) edit->copy();
        else if (command == QLatin1String("paste")) edit->paste();
        else if (command == QLatin1String("delete")) edit->textCursor().removeSelectedText();
        else if (command == QLatin1String("select-all")) edit->selectAll();
        else if (command == QLatin1String("undo")) edit->undo();
        else if (command == QLatin1String("redo")) edit->redo();
    };
    if (auto *edit = qobject_cast<QPlainTextEdit *>(widget))
        return perform(edit);
    if (auto *edit = qobject_cast<QTextEdit *>(widget)) {
        if (isToggleCommand(command) && isRichText(edit))
            toggleFormat(edit, command);
        else if (command == QLatin1String("paste-and-match-style") && isRichText(edit))
            edit->insertPlainText(QGuiApplication::clipboard()->text());
        else
            perform(edit);
        return;
    }
    if (auto *label = qobject_cast<QLabel *>(widget)) {
        if (command == QLatin1String("copy") && label->hasSelectedText())
            QGuiApplication::clipboard()->setText(label->selectedText());
        else if (command == QLatin1String("select-all"))
            label->setSelection(0, label->text().size());
    }
}

/* Calls of org.menubus.MenuBus1.Client, from menubusd only. */
bool MbBridge::handleClientCall(const QDBusMessage &message, const QDBusConnection &connection)
{
    if (message.interface() == QLatin1String("org.freedesktop.DBus.Introspectable"))
        return false;
    auto answer = [&](const QDBusMessage &reply) {
        if (!message.isReplyRequired())
            return;
        connection.send(reply);
    };
    if (m_daemon.isEmpty() || message.service() != m_daemon) {
        answer(message.createErrorReply(QDBusError::AccessDenied, QStringLiteral("only menubusd calls this object")));
        return true;
    }
    const QList<QVariant> args = message.arguments();
    const QString member = message.member();
    MbField *field = args.isEmpty() ? nullptr : fieldById(args.at(0).toString());
    if (member == QLatin1String("PerformCommand") && args.size() == 3) {
        const QVariantMap arguments = qdbus_cast<QVariantMap>(args.at(2));
        answer(message.createReply());
        if (field && field->widget) {
            QPointer<QWidget> widget = field->widget;
            const QString command = args.at(1).toString();
            QTimer::singleShot(0, this, [this, widget, command, arguments]() {
                if (widget)
                    perform(widget, command, arguments);
            });
        }
        return true;
    }
    if (member == QLatin1String("GetSelectedText") && args.size() == 1) {
        answer(message.createReply(field && field->widget ? selectedText(field->widget) : QString()));
        return true;
    }
    if (member == QLatin1String("ActionInvoked") || member == QLatin1String("MenuPresented")) {
        answer(message.createReply());
        return true;
    }
    if (member == QLatin1String("ProvideElements")) {
        answer(message.createReply(QVariant::fromValue(MbElements())));
        return true;
    }
    answer(message.createErrorReply(QDBusError::UnknownMethod, QStringLiteral("no method %1").arg(member)));
    return true;
}

namespace {

/* The per-app list: [Exclude] Apps=a;b; in menubus/integration.conf of
 * XDG_CONFIG_HOME, then of each of XDG_CONFIG_DIRS (a GKeyFile list). */
bool excludedByConfig(const QStringList &names)
{
    QString home = qEnvironmentVariable("XDG_CONFIG_HOME");
    if (home.isEmpty())
        home = QDir::homePath() + QLatin1String("/.config");
    QString system = qEnvironmentVariable("XDG_CONFIG_DIRS");
    if (system.isEmpty())
        system = QStringLiteral("/etc/xdg");
    const QStringList folders = QStringList { home } + system.split(QLatin1Char(':'), Qt::SkipEmptyParts);
    for (const QString &folder : folders) {
        QFile file(folder + QLatin1String("/menubus/integration.conf"));
        if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
            continue;
        bool inExclude = false;
        while (!file.atEnd()) {
            const QString line = QString::fromUtf8(file.readLine()).trimmed();
            if (line.startsWith(QLatin1Char('['))) {
                inExclude = line == QLatin1String("[Exclude]");
            } else if (inExclude && line.startsWith(QLatin1String("Apps"))) {
                const QString value = line.mid(line.indexOf(QLatin1Char('=')) + 1);
                for (const QString &app : value.split(QLatin1Char(';'), Qt::SkipEmptyParts))
                    if (names.contains(app.trimmed()))
                        return true;
            }
        }
    }
    return false;
}

bool leftOut()
{
    const QByteArray off = qgetenv("MENUBUS_DISABLE");
    if (!off.isEmpty() && off != "0")
        return true;
    const QStringList names = { QFileInfo(QCoreApplication::applicationFilePath()).fileName(),
                                QCoreApplication::applicationName() };
    return excludedByConfig(names);
}

} // namespace

/* The theme: the wrapped one's answers, MenuBus's bridge beside. */
class MbTheme : public QPlatformTheme
{
public:
    MbTheme()
    {
        m_wrapped.reset(createWrapped());
        /* Once the application is whole (the theme is made while
         * QGuiApplication is constructed, before the app names itself) and
         * its loop runs. */
        if (QCoreApplication *app = QCoreApplication::instance())
            QTimer::singleShot(0, app, []() {
                if (qobject_cast<QApplication *>(QCoreApplication::instance()) && !leftOut())
                    MbBridge::instance();
            });
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
        QPlatformIntegration *integration = QGuiApplicationPrivate::platformIntegration();
        for (const QString &name : named + (integration ? integration->themeNames() : QStringList()))
            if (name.compare(QLatin1String("menubus"), Qt::CaseInsensitive) != 0 && !names.contains(name))
                names += name;
        for (const QString &name : qAsConst(names))
            if (QPlatformTheme *theme = QPlatformThemeFactory::create(name)) {
                MB_DEBUG("wrapping the theme plugin '%s'", qPrintable(name));
                return theme;
            }
        for (const QString &name : qAsConst(names))
            if (QPlatformTheme *theme = integration ? integration->createPlatformTheme(name) : nullptr) {
                MB_DEBUG("wrapping Qt's theme '%s'", qPrintable(name));
                return theme;
            }
        return nullptr;
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

#include "menubus-qt.moc"
