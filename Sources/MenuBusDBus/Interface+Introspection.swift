extension Interface {
    /// The `<interface>` element for this declaration, indented by `indent` spaces.
    func introspectionXML(indent: Int = 2) -> String {
        let pad = String(repeating: " ", count: indent)
        var xml = "\(pad)<interface name=\"\(escapeXML(name))\">\n"
        for method in methods {
            if method.inputs.isEmpty && method.outputs.isEmpty {
                xml += "\(pad)  <method name=\"\(method.name)\"/>\n"
                continue
            }
            xml += "\(pad)  <method name=\"\(method.name)\">\n"
            for argument in method.inputs {
                xml += "\(pad)    <arg name=\"\(argument.name)\" type=\"\(escapeXML(argument.signature.rawValue))\" direction=\"in\"/>\n"
            }
            for argument in method.outputs {
                xml += "\(pad)    <arg name=\"\(argument.name)\" type=\"\(escapeXML(argument.signature.rawValue))\" direction=\"out\"/>\n"
            }
            xml += "\(pad)  </method>\n"
        }
        for signal in signals {
            if signal.arguments.isEmpty {
                xml += "\(pad)  <signal name=\"\(signal.name)\"/>\n"
                continue
            }
            xml += "\(pad)  <signal name=\"\(signal.name)\">\n"
            for argument in signal.arguments {
                xml += "\(pad)    <arg name=\"\(argument.name)\" type=\"\(escapeXML(argument.signature.rawValue))\"/>\n"
            }
            xml += "\(pad)  </signal>\n"
        }
        for property in properties {
            let open = "\(pad)  <property name=\"\(property.name)\" type=\"\(escapeXML(property.signature.rawValue))\" access=\"\(property.access.rawValue)\""
            if property.emitsValue && property.emitsSignal {
                xml += open + "/>\n"
            } else {
                xml += open + ">\n"
                let value = property.emitsSignal ? "invalidates" : "false"
                xml += "\(pad)    <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(value)\"/>\n"
                xml += "\(pad)  </property>\n"
            }
        }
        xml += "\(pad)</interface>\n"
        return xml
    }

    /// A whole introspection document for an object with `interfaces` and child nodes.
    static func introspectionDocument(interfaces: [Interface], children: [String]) -> String {
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>

            """
        for interface in interfaces {
            xml += interface.introspectionXML(indent: 2)
        }
        for child in children {
            xml += "  <node name=\"\(escapeXML(child))\"/>\n"
        }
        xml += "</node>\n"
        return xml
    }
}

private func escapeXML(_ text: String) -> String {
    var out = ""
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(character)
        }
    }
    return out
}
