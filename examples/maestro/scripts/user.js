// Fills output for later steps (no file system, no network: the sandbox has neither).
output.user = PREFIX + 'mo';
output.length = output.user.length;
console.log('user is', output.user);
