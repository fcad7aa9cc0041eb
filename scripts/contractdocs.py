"""The documentation of the D-Bus contract, kept in dbus/*.xml.

Each interface, method, signal, property and argument of the committed
interface files carries an `org.gtk.GDBus.DocString` annotation, read as
gdbus-codegen reads it (the interface may add `org.gtk.GDBus.DocString.Short`).
A value is Markdown; its line breaks are written `&#10;` (an XML parser turns
a literal line break in an attribute into a space), and each line's leading
spaces are dropped when it is read.

Used by scripts/build-api-docs (docs/API.md from the files, and the checks)
and by scripts/update-contract (which rewrites the files from what the code
serves and carries the DocStrings over).
"""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

DOC = "org.gtk.GDBus.DocString"
SHORT = "org.gtk.GDBus.DocString.Short"
DOC_NAMES = (DOC, SHORT)

# The files in the order the reference takes them, with the object path each describes.
FILES = [
    "org.menubus.MenuBus1.xml",
    "org.menubus.MenuBus1.Menu.xml",
    "org.menubus.MenuBus1.Client.xml",
    "org.menubus.MenuBus1.Provider.xml",
    # What a presented menu serves in the desktop's menu protocols (their
    # specifications are other projects'; these say what menubusd does).
    "com.canonical.dbusmenu.xml",
    "org.gtk.Menus.xml",
    "org.gtk.Actions.xml",
]


def clean(value):
    """A DocString value as written: lines without their leading spaces."""
    lines = [line.strip() for line in value.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def element_docs(element):
    """{annotation name: text} of the DocString annotations directly under element."""
    return {a.get("name"): clean(a.get("value", "")) for a in element.findall("annotation")
            if a.get("name") in DOC_NAMES}


def arg_key(member, index, arg):
    """Arguments are keyed by name, or by position when a served argument has no name."""
    return arg.get("name") or f"#{index}"


def read_docs(path):
    """{(interface, kind, member, arg or None, annotation): text} of one file."""
    docs = {}
    root = ET.parse(path).getroot()
    for interface in root.findall("interface"):
        name = interface.get("name")
        for annotation, text in element_docs(interface).items():
            docs[(name, "interface", None, None, annotation)] = text
        for kind in ("method", "signal", "property"):
            for member in interface.findall(kind):
                for annotation, text in element_docs(member).items():
                    docs[(name, kind, member.get("name"), None, annotation)] = text
                for index, arg in enumerate(member.findall("arg")):
                    for annotation, text in element_docs(arg).items():
                        docs[(name, kind, member.get("name"), arg_key(member, index, arg), annotation)] = text
    return docs


def escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def annotation_lines(text, indent, annotation=DOC):
    """The annotation element for text, one source line per line of text."""
    pad = " " * indent
    lines = text.split("\n")
    first = f'{pad}<annotation name="{annotation}" value="{escape(lines[0])}'
    rest = [f"{pad}    {escape(line)}" for line in lines[1:]]
    body = "&#10;\n".join([first] + rest)
    return body + '"/>'


OPEN = re.compile(r'^(\s*)<(interface|method|signal|property|arg) ([^>]*?)(/?)>\s*$')


def with_docs(xml, docs):
    """The served interface XML (one element a line, as menubusd and the
    client library write it) with the DocStrings of `docs` inserted."""
    out = []
    interface = None
    kind = member = None
    arg_index = 0
    for line in xml.split("\n"):
        match = OPEN.match(line)
        if not match:
            out.append(line)
            continue
        pad, tag, attributes, closed = match.groups()
        name = re.search(r'name="([^"]*)"', attributes)
        name = name.group(1) if name else None
        if tag == "interface":
            interface, key = name, (name, "interface", None, None)
        elif tag == "arg":
            key = (interface, kind, member, name or f"#{arg_index}")
            arg_index += 1
        else:
            kind, member, arg_index = tag, name, 0
            key = (interface, tag, name, None)
        found = [(a, docs[key + (a,)]) for a in (SHORT, DOC) if key + (a,) in docs]
        if not found:
            out.append(line)
            continue
        out.append(f"{pad}<{tag} {attributes}>")
        for annotation, text in found:
            out.append(annotation_lines(text, len(pad) + 2, annotation))
        if closed:
            out.append(f"{pad}</{tag}>")
    return "\n".join(out)


def without_docs(xml):
    """The XML with every DocString annotation taken out and elements left
    empty written self-closing again: what the code serves."""
    xml = re.sub(r'\s*<annotation name="org\.gtk\.GDBus\.DocString(\.Short)?" value="[^"]*"/>', "", xml)
    return re.sub(r'<(method|signal|property|arg) ([^>]*[^/])>\s*</\1>', r'<\1 \2/>', xml)


def missing_docs(path):
    """Descriptions of the elements of one file that have no DocString."""
    missing = []
    root = ET.parse(path).getroot()
    for interface in root.findall("interface"):
        name = interface.get("name")
        if DOC not in element_docs(interface):
            missing.append(f"interface {name}")
        for kind in ("method", "signal", "property"):
            for member in interface.findall(kind):
                where = f"{name}.{member.get('name')}"
                if not element_docs(member).get(DOC):
                    missing.append(f"{kind} {where}")
                for index, arg in enumerate(member.findall("arg")):
                    if not element_docs(arg).get(DOC):
                        missing.append(f"argument {arg_key(member, index, arg)} of {kind} {where}")
    return missing


# Markdown.

def indent_rest(text, pad):
    lines = text.split("\n")
    return "\n".join([lines[0]] + [(pad + line) if line else "" for line in lines[1:]])


def signature(member, kind):
    args = member.findall("arg")
    parts = []
    for arg in args:
        direction = arg.get("direction", "in" if kind == "method" else "")
        if kind == "method" and direction == "out":
            continue
        parts.append(f"{arg.get('type')} {arg.get('name')}")
    text = f"{member.get('name')}({', '.join(parts)})"
    if kind == "method":
        outs = [f"{a.get('type')} {a.get('name')}" for a in args if a.get("direction") == "out"]
        text += f" → ({', '.join(outs)})" if outs else ""
    return text


def render_member(member, kind):
    name = member.get("name")
    docs = element_docs(member)
    out = []
    if kind == "property":
        access = member.get("access")
        emits = next((a.get("value") for a in member.findall("annotation")
                      if a.get("name") == "org.freedesktop.DBus.Property.EmitsChangedSignal"), "true")
        signal = {"true": "PropertiesChanged carries the new value", "invalidates": "PropertiesChanged invalidates it",
                  "false": "no PropertiesChanged: read it afresh", "const": "never changes"}.get(emits, emits)
        out.append(f"### Property `{name}`\n")
        out.append(f"`{member.get('type')}`, {access}; {signal}.\n")
    else:
        out.append(f"### {'Method' if kind == 'method' else 'Signal'} `{name}`\n")
        out.append(f"    {signature(member, kind)}\n")
    out.append(docs.get(DOC, "") + "\n")
    args = member.findall("arg")
    if args:
        out.append("Arguments:\n")
        for index, arg in enumerate(args):
            direction = arg.get("direction", "in" if kind == "method" else "")
            label = f"{direction}, " if kind == "method" else ""
            text = element_docs(arg).get(DOC, "")
            out.append(f"- `{arg_key(member, index, arg)}` (`{arg.get('type')}`, {label}".rstrip(", ") +
                       f"): {indent_rest(text, '  ')}")
        out.append("")
    return "\n".join(out)


def render(directory):
    """docs/API.md from the interface files in directory."""
    directory = Path(directory)
    out = ["# MenuBus D-Bus API, version 1", "",
           "<!-- Generated by scripts/build-api-docs from the org.gtk.GDBus.DocString annotations of",
           "     dbus/*.xml: edit those, then run the script. A test checks the two agree. -->", ""]
    roots = [ET.parse(directory / file).getroot() for file in FILES]
    overview = element_docs(roots[0].find("interface")).get(DOC, "")
    out += [overview, "", "## Contents", ""]
    for root in roots:
        for interface in root.findall("interface"):
            members = [f"{kind} `{m.get('name')}`" if kind != "method" else f"`{m.get('name')}`"
                       for kind in ("method", "signal", "property") for m in interface.findall(kind)]
            out.append(f"- `{interface.get('name')}`: {', '.join(members)}")
    out.append("")
    for index, file in enumerate(FILES):
        root = roots[index]
        for interface in root.findall("interface"):
            docs = element_docs(interface)
            if index == 0:
                # The manager's DocString is the overview of the whole API (above);
                # its short form introduces the interface itself.
                intro = docs.get(SHORT, "")
            else:
                intro = docs.get(DOC, "")
            out += [f"## Interface `{interface.get('name')}`", "",
                    f"File [`dbus/{file}`](../dbus/{file}), object `{root.get('name')}`.", "", intro, ""]
            for kind in ("method", "signal", "property"):
                for member in interface.findall(kind):
                    out.append(render_member(member, kind))
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.rstrip("\n") + "\n"
