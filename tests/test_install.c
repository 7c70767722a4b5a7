/* penlim as an installed library: `cmake --install` into a scratch prefix, then, from outside the
 * source tree, the examples built against it with find_package(penlim) and with pkg-config, their
 * models loaded by the installed program, the library program run, and the README's commands for a
 * model of one's own run as written (the block after the marker "user-model-commands"). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli_util.h"

static char prefix[512], env[2048];

/* sh -c CMD in dir, with the installed program and pkg-config file first on the paths. */
static int sh(const char *cmd)
{
    char full[8192];
    snprintf(full, sizeof full, "cd %s && %s %s > stdout.txt 2> stderr.txt", dir, env, cmd);
    int rc = system(full);
    if (rc != 0) {
        char *err = slurp("stderr.txt");
        fprintf(stderr, "[%s] failed:\n%s\n", cmd, err ? err : "");
        free(err);
    }
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int main(int argc, char **argv)
{
    check_init();
    if (argc < 5) {
        fprintf(stderr, "usage: test_install CMAKE BUILD_DIR SOURCE_DIR SANITIZE_FLAGS\n");
        return 2;
    }
    const char *cmake = argv[1], *build = argv[2], *source = argv[3], *san = argv[4];
    snprintf(dir, sizeof dir, "/tmp/penlim-install-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    snprintf(prefix, sizeof prefix, "%s/prefix", dir);
    snprintf(env, sizeof env,
             "export PATH=%s/bin:$PATH PKG_CONFIG_PATH=%s/lib/pkgconfig LD_LIBRARY_PATH=%s/lib CFLAGS='%s' "
             "LDFLAGS='%s';",
             prefix, prefix, prefix, san, san);
    char cmd[4096], name[512];
    snprintf(cmd, sizeof cmd, "%s --install %s --prefix %s", cmake, build, prefix);
    CHECK(sh(cmd) == 0, "cmake --install into a scratch prefix");
    const char *files[] = {"lib/libpenlim.so", "lib/libpenlim.a", "include/penlim/penlim.h", "bin/penlim",
                           "lib/cmake/penlim/penlimConfig.cmake", "lib/pkgconfig/penlim.pc"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(name, sizeof name, "prefix/%s", files[k]);
        CHECK(exists(name), "installed: %s", files[k]);
    }
    /* the name whole, its dots literal: libpenlim.so.0.20 or libpenlimXso.0.2 does not match */
    CHECK(sh("readelf -d prefix/lib/libpenlim.so | grep -q 'SONAME.*\\[libpenlim\\.so\\.0\\.2\\]'") == 0,
          "SONAME libpenlim.so.0.2");
    CHECK(sh("nm -D --defined-only prefix/lib/libpenlim.so | grep -v ' pl_' | grep -q ' T '") != 0,
          "the shared library exports the public API (pl_) alone");

    /* the examples, with find_package(penlim) */
    const char *examples[] = {"pendulum_wall", "cradle", "sweep_program", "contacts_program"};
    for (size_t k = 0; k < 4; k++) {
        snprintf(cmd, sizeof cmd,
                 "%s -S prefix/share/penlim/examples/%s -B ex/%s -DCMAKE_PREFIX_PATH=%s "
                 "-DCMAKE_C_FLAGS='-Wall -Wextra -Werror %s' -DCMAKE_EXE_LINKER_FLAGS='%s' && %s --build ex/%s",
                 cmake, examples[k], examples[k], prefix, san, san, cmake, examples[k]);
        CHECK(sh(cmd) == 0, "example %s builds with find_package(penlim)", examples[k]);
    }
    CHECK(sh("penlim sweep --model ./ex/pendulum_wall/pendulum_wall.so --mu 1e4,1e6,1e8 --set e=0.6 --out pw "
             "--no-plots --quiet") == 0, "the installed program sweeps the pendulum model");
    char *text = slurp("pw/sweep.json");
    CHECK(text && strstr(text, "\"restitution_first\""), "the pendulum's sweep written");
    free(text);
    CHECK(sh("penlim run --model ./ex/cradle/cradle.so --set N=4 --mu 1e8 --out cr --quiet") == 0,
          "the installed program runs the cradle with N = 4");
    snprintf(cmd, sizeof cmd, "%s/cr/summary.json", dir);
    json_t *j = json_load_file(cmd, 0, NULL);
    json_t *v = json_object_get(json_object_get(j, "final"), "v");
    double p = 0.0;
    for (size_t k = 0; k < json_array_size(v); k++)
        p += json_real_value(json_array_get(v, k));
    CHECK(json_array_size(v) == 4, "the cradle has 4 balls");
    CHECK_NEAR(p, 1.0, 1e-9, "the cradle keeps its momentum V");
    json_decref(j);
    CHECK(sh("./ex/contacts_program/box_contacts") == 0, "the contacts program runs");
    text = slurp("stdout.txt");
    CHECK(text && strstr(text, "sparse contacts, ") && strstr(text, " of 50 columns") && strstr(text, "at most "),
          "the box of 12 disks: sparse by default, rows of t, gamma, q and v alone (2 + 2 x 24 columns): %s", text ? text : "");
    free(text);
    CHECK(sh("./ex/sweep_program/sweep_restitution") == 0, "the library program runs");
    text = slurp("stdout.txt");
    double rate = NAN;
    const char *r = text ? strstr(text, "with rate ") : NULL;
    if (r)
        rate = atof(r + 10);
    CHECK_NEAR(rate, 0.5, 0.02, "the library program's fitted restitution rate, 1/2");
    free(text);

    /* pkg-config: a model and the library program, compiled by hand */
    CHECK(sh("cc -shared -fPIC $(pkg-config --cflags penlim) -Wall -Wextra -Werror "
             "prefix/share/penlim/examples/cradle/cradle.c -o cradle_pc.so") == 0,
          "a model compiled with pkg-config --cflags");
    CHECK(sh("cc $CFLAGS prefix/share/penlim/examples/sweep_program/sweep_restitution.c "
             "$(pkg-config --cflags --libs penlim) -o sweep_pc $LDFLAGS && ./sweep_pc") == 0,
          "a program linked with pkg-config --libs");
    /* Under a prefix the dynamic linker does not search, the program finds the library at run time by the
     * run path docs/library.md gives (without LD_LIBRARY_PATH: it would not start, libpenlim.so.0.2 not found) */
    CHECK(sh("cc $CFLAGS prefix/share/penlim/examples/sweep_program/sweep_restitution.c "
             "$(pkg-config --cflags --libs penlim) -Wl,-rpath,\"$(pkg-config --variable=libdir penlim)\" "
             "-o sweep_rpath $LDFLAGS && env -u LD_LIBRARY_PATH ./sweep_rpath") == 0,
          "a program linked with the documented run path starts without LD_LIBRARY_PATH");
    CHECK(sh("cc $CFLAGS prefix/share/penlim/examples/sweep_program/sweep_restitution.c "
             "$(pkg-config --cflags --libs penlim) -o sweep_norpath $LDFLAGS && env -u LD_LIBRARY_PATH ./sweep_norpath "
             "2> /dev/null") != 0,
          "without it, it does not (what the run path is for)");

    /* the README's commands for one's own model, as written (the first, the install, done above) */
    snprintf(cmd, sizeof cmd, "%s/README.md", source);
    FILE *f = fopen(cmd, "r");
    char line[1024];
    int in_block = 0, seen = 0, commands = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, "<!-- user-model-commands -->")) {
            seen = 1;
            continue;
        }
        if (seen && strncmp(line, "    ", 4) == 0) {
            in_block = 1;
            char *c = line + 4, *hash = strstr(c, "  #");
            if (hash)
                *hash = '\0';
            c[strcspn(c, "\n")] = '\0';
            if (strstr(c, "scripts/setup"))
                continue;
            commands++;
            CHECK(sh(c) == 0, "README: %s", c);
        } else if (in_block) {
            break;
        }
    }
    if (f)
        fclose(f);
    CHECK(seen && commands >= 4, "the README's user-model commands found (%d)", commands);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_install");
}
