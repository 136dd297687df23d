import SubmissionCore

/// The ProteGO adapter's keys go through the same two phases as the CWA upload's.
extension KeyIntake: ProteGOKeyIntake {}
