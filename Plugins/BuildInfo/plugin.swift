import Foundation
import PackagePlugin

/// Writes the commit the executables are built from, and when that commit was first built, into the target it is
/// applied to (`BuildInfo+Generated.swift`), for `--version`, the management listener's `/health/live` and the
/// `exposure_build_info` metric. It runs before every build, and rewrites the file only when the commit (or whether
/// the tree has uncommitted changes) is not the one the file names, so that an unchanged tree rebuilds nothing.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        return [
            .prebuildCommand(
                displayName: "Recording the commit of this build",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    context.package.directoryURL.appending(path: "Plugins/BuildInfo/build-info.sh").path,
                    context.package.directoryURL.path,
                    output.appending(path: "BuildInfo+Generated.swift").path,
                ],
                outputFilesDirectory: output
            ),
        ]
    }
}
