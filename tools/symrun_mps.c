/* symrun_mps.c - CUDA MPS for PEs that share a GPU (issue 7, docs/gpu.md).
 *
 * Without MPS the kernels of different processes on one GPU take turns in
 * time slices of milliseconds, so a device barrier or a wait for a peer's
 * signal costs milliseconds; under MPS they run at the same time.  When the
 * job has more PEs than visible GPUs, symrun starts a private MPS control
 * daemon before the PEs: its pipe and log directories live in a fresh
 * directory under $TMPDIR (default /tmp), passed to the PEs through
 * CUDA_MPS_PIPE_DIRECTORY / CUDA_MPS_LOG_DIRECTORY; after the last PE has
 * exited symrun tells it to quit and removes the directory.
 *
 * Not started when: --no-mps; the user already points CUDA_MPS_PIPE_DIRECTORY
 * at a daemon of their own; no GPU is visible (no /dev/nvidiaN or an empty
 * CUDA_VISIBLE_DEVICES); the PEs fit one per GPU; nvidia-cuda-mps-control is
 * not in PATH.  A daemon that fails to start is a warning, not an error: the
 * job runs without MPS, only slower to synchronize.  If symrun itself is
 * killed with SIGKILL the daemon outlives it (stop it with
 * `echo quit | CUDA_MPS_PIPE_DIRECTORY=<dir>/pipe nvidia-cuda-mps-control`). */
#include "symrun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char mps_dir[PATH_MAX];
static char mps_ctl[PATH_MAX];

/* Visible GPUs: CUDA_VISIBLE_DEVICES' entries when set, else /dev/nvidiaN. */
static int count_gpus(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    int n = 0;
    if (v) {
        for (const char *p = v; *p; p++)
            if (*p != ',' && (p == v || p[-1] == ',')) n++;
        return n;
    }
    DIR *d = opendir("/dev");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "nvidia", 6) && e->d_name[6] >= '0' && e->d_name[6] <= '9' &&
            strspn(e->d_name + 6, "0123456789") == strlen(e->d_name + 6))
            n++;
    closedir(d);
    return n;
}

static int find_in_path(const char *prog, char *out, size_t len)
{
    const char *dirs = getenv("PATH");
    if (!dirs) dirs = "/usr/local/bin:/usr/bin:/bin";
    for (const char *d = dirs;; d++) {
        const char *e = strchrnul(d, ':');
        snprintf(out, len, "%.*s/%s", (int)(e - d), d, prog);
        if (e > d && access(out, X_OK) == 0) return 0;
        if (!*e) return -1;
        d = e;
    }
}

/* Run the control program with `input` on its stdin; its exit status or -1. */
static int run_ctl(const char *arg, const char *input)
{
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[0], 0);
        close(p[0]);
        close(p[1]);
        /* the daemon must not hold symrun's stdout/stderr open: its log dir has the output */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) { dup2(null, 1); dup2(null, 2); }
        execl(mps_ctl, mps_ctl, arg, (char *)NULL);
        _exit(127);
    }
    close(p[0]);
    if (input) {
        ssize_t w = write(p[1], input, strlen(input));
        (void)w;
    }
    close(p[1]);
    int st;
    while (pid > 0 && waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

int symrun_mps_start(struct job *j)
{
    int gpus = count_gpus();
    if (j->o.no_mps || getenv("CUDA_MPS_PIPE_DIRECTORY") || gpus == 0 || j->o.n <= gpus) return 0;
    if (find_in_path("nvidia-cuda-mps-control", mps_ctl, sizeof mps_ctl) != 0) {
        fprintf(stderr, "symrun: warning: %d PEs share %d GPU%s but nvidia-cuda-mps-control is "
                "not in PATH: running without MPS (GPU barriers and waits between PEs take "
                "milliseconds); install it or pass --no-mps to silence this\n", j->o.n, gpus,
                gpus == 1 ? "" : "s");
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(mps_dir, sizeof mps_dir, "%s/symrun-mps-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(mps_dir)) {
        fprintf(stderr, "symrun: warning: cannot create %s for MPS: %s; running without MPS\n",
                mps_dir, strerror(errno));
        mps_dir[0] = 0;
        return 0;
    }
    char pipe_dir[PATH_MAX + 8], log_dir[PATH_MAX + 8];
    snprintf(pipe_dir, sizeof pipe_dir, "%s/pipe", mps_dir);
    snprintf(log_dir, sizeof log_dir, "%s/log", mps_dir);
    mkdir(pipe_dir, 0700);
    mkdir(log_dir, 0700);
    setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir, 1);
    setenv("CUDA_MPS_LOG_DIRECTORY", log_dir, 1);
    int rc = run_ctl("-d", NULL);
    if (rc != 0) {
        fprintf(stderr, "symrun: warning: nvidia-cuda-mps-control -d failed (exit %d; see %s): "
                "running without MPS\n", rc, log_dir);
        unsetenv("CUDA_MPS_PIPE_DIRECTORY");
        unsetenv("CUDA_MPS_LOG_DIRECTORY");
        nftw(mps_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
        mps_dir[0] = 0;
        return 0;
    }
    return 1;
}

void symrun_mps_stop(void)
{
    if (!mps_dir[0]) return;
    run_ctl(NULL, "quit\n"); /* waits for the server to go */
    nftw(mps_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    mps_dir[0] = 0;
}
