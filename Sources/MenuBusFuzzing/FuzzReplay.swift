import Foundation

/// `menubus-fuzz` built without libFuzzer: replays inputs, or writes the seeds.
package enum FuzzReplay {
    package static func main(_ arguments: [String]) {
#if DEBUG
        if arguments.count == 2, arguments[0] == "--seeds" {
            for target in FuzzTarget.allCases {
                let folder = "\(arguments[1])/\(target.rawValue)"
                try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for (name, bytes) in target.seeds {
                    _ = FileManager.default.createFile(atPath: "\(folder)/\(name)", contents: Data(bytes))
                }
            }
            return
        }
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            fail("usage: menubus-fuzz (\(names)) FILE_OR_FOLDER...  |  menubus-fuzz --seeds FOLDER")
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in inputs(path) {
                guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
                target.run(Array(data))
                count += 1
            }
        }
        print("\(target.rawValue): \(count) inputs ran")
#else
        fail("menubus-fuzz: the fuzz targets are built in debug only (swift build -c debug)")
#endif
    }

    /// `path` itself, or the files in the folder `path`, sorted.
    package static func inputs(_ path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(path)/\($0)" }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
        exit(2)
    }
}
