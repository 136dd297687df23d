import ExposureCore
import Portal

await CommandLineMain.run(PortalCommand.self)
