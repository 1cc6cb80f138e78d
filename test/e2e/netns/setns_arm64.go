package netns

// sysSetns is setns(2).
const sysSetns = 268
