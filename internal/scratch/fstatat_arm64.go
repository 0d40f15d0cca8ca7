package scratch

import "syscall"

// sysFstatat is the number of the fstatat system call.
const sysFstatat = syscall.SYS_FSTATAT
