package proc

// SecretsFDEnv is the environment variable that tells an image re-executed by [HideEnv]
// which inherited file descriptor holds the hidden variables.
const SecretsFDEnv = "MCPBRIDGE_SECRETS_FD"
