package dev.sluice.gateway.config;

/** A tenant declared in the file for the quickstart and the lab; its key is stored only as a SHA-256 hash. */
public record DemoTenant(String id, String tier, String keySha256, boolean suspended) {}
