/* version: the one place the version is written. */
#ifndef KVPLAN_CORE_VERSION_H
#define KVPLAN_CORE_VERSION_H

#define KVPLAN_VERSION "0.1.0"
#define KVPLAN_GENERATOR "kvplan " KVPLAN_VERSION

#endif
