import ExposureCore
import Submission

await CommandLineMain.run(SubmissionCommand.self)
