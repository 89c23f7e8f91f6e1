# m4/bitarena.m4 - configure.ac's own macros: compiler flags tested before use, and the
# optional back ends (--with-X: built when found, required with =yes, left out with --without-X).

# BITARENA_CHECK_CFLAG(FLAG, [ACTION-IF-ACCEPTED], [ACTION-IF-NOT])
# Whether $CC compiles an empty program with FLAG, warnings as errors (so that a flag the
# compiler does not know, which clang only warns about, counts as refused). A -Wno-X flag is
# tested as -WX: GCC accepts any -Wno-X it does not know, silently.
AC_DEFUN([BITARENA_CHECK_CFLAG], [
	AS_VAR_PUSHDEF([cache], [bitarena_cv_cflag_$1])
	AC_CACHE_CHECK([whether $CC accepts $1], [cache], [
		bitarena_save_CFLAGS=$CFLAGS
		CFLAGS="$CFLAGS -Werror m4_bpatsubst([$1], [^-Wno-], [-W])"
		AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
			[AS_VAR_SET([cache], [yes])], [AS_VAR_SET([cache], [no])])
		CFLAGS=$bitarena_save_CFLAGS])
	AS_VAR_IF([cache], [yes], [$2], [$3])
	AS_VAR_POPDEF([cache])
])

# BITARENA_ADD_CFLAGS(VARIABLE, FLAGS)
# Appends to VARIABLE each of FLAGS (a blank-separated list) that $CC accepts.
AC_DEFUN([BITARENA_ADD_CFLAGS], [
	m4_foreach_w([bitarena_flag], [$2],
		[BITARENA_CHECK_CFLAG(bitarena_flag, [$1="$$1 bitarena_flag"])])
])

# BITARENA_WITH(NAME, VARIABLE-PREFIX, PKG-CONFIG-MODULES, WHAT, DEBIAN-PACKAGE,
#               [PREREQUISITE-TEST, WHY])
# --with-NAME / --without-NAME for an optional back end found by pkg-config: with_NAME ends
# as yes or no; VARIABLE-PREFIX_CFLAGS and _LIBS are set when yes. Default (check): yes when
# the modules are found. --with-NAME=yes fails when they are not, or when the shell test
# PREREQUISITE-TEST fails (WHY says why); without --with-NAME=yes that leaves it out.
AC_DEFUN([BITARENA_WITH], [
	AC_ARG_WITH([$1],
		[AS_HELP_STRING([--with-$1], [$4 (default: when found)])],
		[], [with_$1=check])
	AS_CASE([$with_$1], [yes|no|check], [],
		[AC_MSG_ERROR([--with-$1 takes yes or no, not '$with_$1'])])
	m4_ifnblank([$6], [AS_IF([test "x$with_$1" != xno && ! $6], [
		AS_IF([test "x$with_$1" = xyes], [AC_MSG_ERROR([--with-$1: $7])])
		AC_MSG_NOTICE([building without $4: $7])
		with_$1=no])])
	AS_IF([test "x$with_$1" != xno],
		[PKG_CHECK_MODULES([$2], [$3], [with_$1=yes],
			[AS_IF([test "x$with_$1" = xyes],
				[AC_MSG_ERROR([--with-$1: $3 not found (apt-get install $5), or configure --without-$1])])
			 AC_MSG_NOTICE([$3 not found: building without $4 (apt-get install $5 to have it)])
			 with_$1=no])])
])

# BITARENA_HAVE(DEFINE, CONDITIONAL, SHELL-TEST, DESCRIPTION)
# DEFINE is 1 or 0 in config.h (always defined: `#if DEFINE` and `if (DEFINE)` both work
# under -Wundef) and the Automake conditional follows it.
AC_DEFUN([BITARENA_HAVE], [
	AS_IF([$3], [bitarena_have=1], [bitarena_have=0])
	AC_DEFINE_UNQUOTED([$1], [$bitarena_have], [$4])
	AM_CONDITIONAL([$2], [$3])
])
