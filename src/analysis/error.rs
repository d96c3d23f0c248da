//! What an analysis cannot do with the input or the options: a user error, not a bug.

/// What an analysis cannot do with the input or the options (a user error, not a bug).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysisError(pub String);

impl std::fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AnalysisError {}

/// Shorthand for an [`AnalysisError`] result.
pub fn fail<T>(msg: impl Into<String>) -> Result<T, AnalysisError> {
    Err(AnalysisError(msg.into()))
}
