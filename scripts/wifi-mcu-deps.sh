#!/bin/sh
# Toolchains and simulators of the microcontroller measurements (wifi/mcu,
# make wifi-mcu): Debian's gcc-avr, avr-libc and simavr (ATmega128),
# gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm
# (Cortex-M3, lm3s6965evb). Idempotent: apt-get runs only for what is
# missing.
set -eu
need=""
have() { command -v "$1" >/dev/null 2>&1; }
have avr-gcc || need="$need gcc-avr binutils-avr"
[ -f /usr/lib/avr/include/avr/io.h ] || need="$need avr-libc"
have simavr || need="$need simavr"
[ -f /usr/include/simavr/sim_avr.h ] || need="$need libsimavr-dev"
[ -f /usr/include/libelf.h ] || need="$need libelf-dev"
have cc || need="$need gcc libc6-dev"
have arm-none-eabi-gcc || need="$need gcc-arm-none-eabi binutils-arm-none-eabi"
[ -d /usr/lib/arm-none-eabi/newlib ] || need="$need libnewlib-arm-none-eabi"
have qemu-system-arm || need="$need qemu-system-arm"
have pkg-config || need="$need pkg-config"
if [ -n "$need" ]; then
	echo "installing$need (apt-get) for wifi/mcu"
	if [ "$(id -u)" != 0 ]; then
		echo "wifi-mcu-deps: not root; install as root: apt-get install$need" >&2
		exit 1
	fi
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
