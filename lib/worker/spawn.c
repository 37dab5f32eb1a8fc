/* SPDX-License-Identifier: Apache-2.0 */
/* Finding gpuverify-worker and starting it: posix_spawn in its own process group, stderr on
 * /dev/null, stdin too unless the caller writes to it, stdout the pipe back, no other
 * descriptor, and an environment cut down to what the NVIDIA libraries and the loader read. */
#define _GNU_SOURCE /* dladdr, pipe2, posix_spawn_file_actions_addclosefrom_np */
#include "worker/spawn.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hold_owner.h"
#include "core/util.h"
#include "worker/worker.h"

#ifndef GV_WORKER_RELPATH
#define GV_WORKER_RELPATH "../libexec/gpuverify/gpuverify-worker"
#endif

extern char **environ;

/* 1 when path is an executable regular file; otherwise the reason goes into tried. */
static int candidate(gv_worker_place *w, const char *path)
{
    struct stat st;
    const char *why = NULL;
    if (stat(path, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (access(path, X_OK) != 0)
        why = "not executable";
    char one[PATH_MAX + 64];
    snprintf(one, sizeof one, "%s%s%s%s", path, why ? " (" : "", why ? why : "", why ? ")" : "");
    gv_append(w->tried, sizeof w->tried, "; ", one);
    if (why)
        return 0;
    if (!realpath(path, w->path))
        snprintf(w->path, sizeof w->path, "%s", path);
    return 1;
}

int gv_worker_find(const gv_ctx *ctx, gv_worker_place *w)
{
    w->path[0] = w->tried[0] = '\0';
    if (ctx->worker_path[0])
        return candidate(w, ctx->worker_path);
    Dl_info info;
    if (!dladdr((void *)gv_worker_find, &info) || !info.dli_fname || !info.dli_fname[0]) {
        gv_append(w->tried, sizeof w->tried, "; ", "(the library's own path is unknown)");
        return 0;
    }
    char dir[PATH_MAX];
    if (!realpath(info.dli_fname, dir))
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, GV_WORKER_RELPATH);
    if (candidate(w, path))
        return 1;
    snprintf(path, sizeof path, "%s/gpuverify-worker", dir); /* the build tree */
    return candidate(w, path);
}

/* Variables the worker keeps: those that say which GPUs this process may use and how it reaches
 * them (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER, MPS's pipe and limits), NCCL's (the site's
 * fabric settings, which nccl.* judge), the loader's, the locale and temp directory,
 * gpuverify's and the test fakes' (GV_), hwloc's, and the sanitizers'. Not those that change
 * what CUDA, cuBLAS or cuDNN do (NVIDIA_TF32_OVERRIDE=0, CUDA_FORCE_PTX_JIT=1,
 * CUDA_LAUNCH_BLOCKING=1, CUBLAS*, CUDNN*): a job's or a debugging session's setting is not
 * the hardware's. Inherited on an H100, the first made gemm.tf32 FAIL at 11% of its peak and
 * the second every gemm.* and cudnn.conv FAIL (cublasLtCreate: CUBLAS_STATUS_INTERNAL_ERROR). */
static int kept(const char *entry)
{
    static const char *const prefixes[] = {"CUDA_VISIBLE_DEVICES=",
                                           "CUDA_DEVICE_ORDER=",
                                           "CUDA_MPS_",
                                           "CUDA_CACHE_PATH=",
                                           "NCCL_",
                                           "NVML_",
                                           "LD_LIBRARY_PATH=",
                                           "PATH=",
                                           "HOME=",
                                           "TMPDIR=",
                                           "LANG=",
                                           "LC_",
                                           "GPUVERIFY_",
                                           "GV_",
                                           "HWLOC_",
                                           "ASAN_OPTIONS=",
                                           "UBSAN_OPTIONS=",
                                           "LSAN_OPTIONS=",
                                           "TSAN_OPTIONS="};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* The kept entries, then whose holds the child works under (owner_entry, "" none): never the
 * one this process was given, which names its own parent's context. */
static char **clean_environment(const char *owner_entry)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    const size_t owner_len = strlen(GV_HOLD_OWNER_ENV "=");
    for (char **e = environ; e && *e; e++)
        if (kept(*e) && strncmp(*e, GV_HOLD_OWNER_ENV "=", owner_len) != 0)
            env[k++] = *e;
    if (owner_entry[0])
        env[k++] = (char *)owner_entry;
    return env;
}

gv_status gv_worker_spawn(const char *path, char *const argv[], int with_input,
                          const void *hold_owner, gv_worker_proc *out, char *why, size_t cap)
{
    out->pid = -1;
    out->fd = out->in = -1;
    int fds[2], input[2] = {-1, -1};
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(why, cap, "pipe: %s", strerror(errno));
        return GV_ERR_IO;
    }
    /* A socket, not a pipe: send() can refuse a worker that is gone without raising SIGPIPE. */
    if (with_input && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0) {
        snprintf(why, cap, "socketpair: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return GV_ERR_IO;
    }
    char owner[32], owner_entry[64] = "";
    gv_hold_owner_text(hold_owner, owner, sizeof owner);
    if (owner[0])
        snprintf(owner_entry, sizeof owner_entry, "%s=%s", GV_HOLD_OWNER_ENV, owner);
    char **env = clean_environment(owner_entry);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    if (with_input)
        posix_spawn_file_actions_adddup2(&fa, input[1], 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = env ? posix_spawn(&pid, path, &fa, &attr, argv, env) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    free(env);
    close(fds[1]);
    if (with_input)
        close(input[1]);
    if (rc != 0) {
        close(fds[0]);
        if (with_input)
            close(input[0]);
        snprintf(why, cap, "starting %s: %s", path, strerror(rc));
        return GV_ERR_LIBRARY;
    }
    out->pid = pid;
    out->fd = fds[0];
    out->in = input[0];
    return GV_OK;
}

int gv_worker_tell(gv_worker_proc *p, const char *text)
{
    if (p->in < 0)
        return -1;
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t n = send(p->in, text + done, len - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return done == len ? 0 : -1;
}

int gv_worker_send(gv_worker_proc *p, const char *text)
{
    int rc = gv_worker_tell(p, text);
    if (p->in >= 0)
        close(p->in);
    p->in = -1;
    return rc;
}

/* Reaps the worker if it has ended; 1 then, with its wait status. */
static int reaped(pid_t pid, int *status)
{
    pid_t r;
    do
        r = waitpid(pid, status, WNOHANG);
    while (r < 0 && errno == EINTR);
    /* ECHILD: the caller reaps children itself (SIGCHLD ignored or its own handler). */
    if (r < 0 && errno == ECHILD) {
        *status = GV_WORKER_STATUS_UNKNOWN;
        return 1;
    }
    return r == pid;
}

int gv_worker_stop(gv_worker_proc *p, int kill_now, double grace_s, int *status)
{
    return gv_worker_stop_by(p, kill_now, grace_s, INFINITY, status);
}

int gv_worker_stop_by(gv_worker_proc *p, int kill_now, double grace_s, double limit, int *status)
{
    int st = 0, done = 0;
    if (p->fd >= 0) {
        close(p->fd);
        p->fd = -1;
    }
    if (p->in >= 0) {
        close(p->in);
        p->in = -1;
    }
    if (p->pid <= 0)
        return 1;
    double until = fmin(gv_now_s() + (kill_now ? 0 : grace_s), limit);
    while (!(done = reaped(p->pid, &st)) && gv_now_s() < until)
        gv_nap_ms(1);
    if (!done) {
        kill(-p->pid, SIGKILL);
        /* A process in uninterruptible sleep inside the driver survives SIGKILL until the
         * driver lets go: wait a little, then leave it rather than hang the caller. */
        double now = gv_now_s();
        /* A killed process is gone in ms; on a loaded host its exit may take a second. */
        until = now + fmax(0.05, fmin(2.0, limit - now));
        while (!(done = reaped(p->pid, &st)) && gv_now_s() < until)
            gv_nap_ms(1);
    } else {
        kill(-p->pid, SIGKILL); /* anything it left behind in its group */
    }
    if (status)
        *status = st;
    p->pid = -1;
    return done;
}

void gv_worker_end_text(int status, char *out, size_t cap)
{
    if (status == GV_WORKER_STATUS_UNKNOWN)
        snprintf(out, cap,
                 "ended, how unknown (this process reaps its children itself: "
                 "SIGCHLD ignored or handled)");
    else if (WIFSIGNALED(status))
        snprintf(out, cap, "died with signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(out, cap, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(out, cap, "ended");
}
