import Foundation

/// The targets as Package.swift declares them (`swift package describe`):
/// each one's kind, folder and the targets it depends on.
struct PackageGraph {
    struct Target {
        let name: String
        /// "library", "executable", "test" or "system-target".
        let type: String
        /// The folder, from the package root.
        let path: String
        let dependencies: [String]
    }

    let targets: [String: Target]

    init(_ targets: [Target]) {
        self.targets = Dictionary(targets.map { ($0.name, $0) }) { first, _ in first }
    }

    /// The package's graph now, read in a scratch folder of its own (the
    /// test run holds the lock of `.build`).
    static func load() throws -> PackageGraph {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("menubus-describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try runTool("swift", ["package", "--package-path", Repository.root.path, "--scratch-path", scratch.path,
                                           "describe", "--type", "json"], timeout: 120)
        guard result.status == 0 else { throw TestFailure("swift package describe failed: \(result.stderr)") }
        guard let description = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let targets = description["targets"] as? [[String: Any]] else {
            throw TestFailure("swift package describe printed no targets: \(result.stdout.prefix(200))")
        }
        return PackageGraph(targets.map { target in
            Target(name: target["name"] as? String ?? "", type: target["type"] as? String ?? "",
                   path: target["path"] as? String ?? "", dependencies: target["target_dependencies"] as? [String] ?? [])
        })
    }

    /// Every target `name` depends on, directly or through others (not itself).
    func closure(_ name: String) -> Set<String> {
        var seen: Set<String> = [], queue = [name]
        while let next = queue.popLast() {
            for dependency in targets[next]?.dependencies ?? [] where seen.insert(dependency).inserted {
                queue.append(dependency)
            }
        }
        return seen
    }
}
