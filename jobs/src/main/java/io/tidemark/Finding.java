package io.tidemark;

/**
 * A failure that is what the data says, not what the program did: a check that found something (a refused publish,
 * a failed audit, a failed {@code tidemark check}). Its one line names the finding and the next step; a stack trace
 * would only say where the check is, so none is printed or logged, not even with {@code --debug}.
 */
public interface Finding {}
