import ExposureCore
import Verification

await CommandLineMain.run(VerificationCommand.self)
